/// config.yaml's lines for one machine of a federation that shares one bot of `messenger`
/// (docs/FEDERATION.md, "One bot for all machines").
enum SharedBot {
    static func config(_ messenger: String, machine: String, preferred: Bool = false) -> String {
        "machine: \(machine)\nfederation:\n  ingress: [\(messenger)]\n  preferred: \(preferred)\n"
    }
}
