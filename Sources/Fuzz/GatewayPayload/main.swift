import FuzzDriver

FuzzDriver.run { data, size in
    GatewayPayloadFuzz.test(FuzzInput(data, size))
    return 0
}
