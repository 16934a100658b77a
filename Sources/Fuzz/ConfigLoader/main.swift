import FuzzDriver

FuzzDriver.run { data, size in
    ConfigLoaderFuzz.test(FuzzInput(data, size))
    return 0
}
