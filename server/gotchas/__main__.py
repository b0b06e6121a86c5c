from gotchas.cli import main

raise SystemExit(main())
