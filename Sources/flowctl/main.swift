print("flowctl")
