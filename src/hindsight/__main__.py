from hindsight.cli.main import main

main()
