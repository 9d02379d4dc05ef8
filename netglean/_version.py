"""The package version, in one place: internals and the build read it here, never from the package
face."""

__version__ = "0.1.0"
