import sys

from mem_cli.app import main

sys.exit(main())
