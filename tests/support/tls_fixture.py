"""A throwaway certificate authority and a certificate for site.test, for the fixture site over
TLS."""

from __future__ import annotations

import base64
import datetime
import hashlib
import ssl
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclass(frozen=True)
class TestTLS:
    cert_file: Path
    key_file: Path
    ca_file: Path

    def client_context(self) -> ssl.SSLContext:
        """Trusts only the test CA, and checks hostnames: a certificate for site.test must be
        presented."""
        return ssl.create_default_context(cafile=str(self.ca_file))

    def spki_sha256(self) -> str:
        """The site certificate's public key hash (base64 SHA-256 of its SubjectPublicKeyInfo),
        which Chromium's --ignore-certificate-errors-spki-list trusts: that one certificate, not
        every one."""
        key = x509.load_pem_x509_certificate(self.cert_file.read_bytes()).public_key()
        der, spki = serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        info = key.public_bytes(der, spki)
        return base64.b64encode(hashlib.sha256(info).digest()).decode()


def make_tls(folder: Path, hostname: str = "site.test") -> TestTLS:
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "netglean test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=7))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hostname)]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=7))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(hostname)]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    paths = TestTLS(folder / "site.pem", folder / "site.key", folder / "ca.pem")
    paths.cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths.ca_file.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths.key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return paths
