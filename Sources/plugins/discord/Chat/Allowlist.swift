/// The Discord user ids allowed to use the relay; empty refuses everyone.
struct Allowlist: Sendable {
    let ids: Set<String>

    func permits(_ user: String) -> Bool { ids.contains(user) }
}
