from netglean.cli.main import main

if __name__ == "__main__":  # reader worker processes import this module as __mp_main__: they must not run the CLI
    raise SystemExit(main())
