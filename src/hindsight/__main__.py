from hindsight.entry import main

main()
