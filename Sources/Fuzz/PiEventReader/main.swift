import FuzzDriver

FuzzDriver.run { data, size in
    PiEventReaderFuzz.test(FuzzInput(data, size))
    return 0
}
