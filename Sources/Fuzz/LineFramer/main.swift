import FuzzDriver

FuzzDriver.run { data, size in
    LineFramerFuzz.test(FuzzInput(data, size))
    return 0
}
