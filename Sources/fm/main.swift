print("fm: not implemented yet")
