extension PluginProcess {
    /// A spawn, pipe or wait that went wrong, or a plugin that stayed silent too long.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }
}
