/// A formatter config value that cannot be used; the plugin exits "not configured" with it.
struct FormatterConfigError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = "formatter config: " + description }
}
