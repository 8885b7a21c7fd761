print("fm-bench: no suites yet")
