print("flowd")
