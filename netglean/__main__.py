from netglean.cli import main

raise SystemExit(main())
