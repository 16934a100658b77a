/// A Discord user the fake knows: alice and bob are on the allowlist, mallory is not.
struct StackUser: Sendable, Equatable {
    let id: String
    let name: String

    static let alice = StackUser(id: "1400000000000000001", name: "alice")
    static let bob = StackUser(id: "1400000000000000003", name: "bob")
    static let mallory = StackUser(id: "1400000000000000002", name: "mallory")

    static let all = [alice, bob, mallory]
}
