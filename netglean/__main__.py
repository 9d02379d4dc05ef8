from netglean.cli.main import main

# reader worker processes import this module as __mp_main__: they must not run the CLI
if __name__ == "__main__":
    raise SystemExit(main())
