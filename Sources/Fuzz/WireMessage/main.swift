import FuzzDriver

FuzzDriver.run { data, size in
    WireMessageFuzz.test(FuzzInput(data, size))
    return 0
}
