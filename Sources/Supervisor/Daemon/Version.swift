enum Version {
    static let current = "0.1.0"
}
