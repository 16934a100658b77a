package enum Version {
    package static let current = "0.1.0"
}
