import sys

from mem_cli.main import main

sys.exit(main())
