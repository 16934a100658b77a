import FuzzDriver

FuzzDriver.run { data, size in
    SplitterFuzz.test(FuzzInput(data, size))
    return 0
}
