import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// `state/paired-users.json` (0600): the users added with `pi-relayd pair`, merged with each
/// messenger's configured allowlist. Written whole and atomically on every change, so the CLI
/// can read it while the daemon runs.
package struct PairedUsers: Sendable {
    package static let fileName = "paired-users.json"

    package let path: String
    package private(set) var users: [PairedUser] = []

    package struct LoadError: Error, CustomStringConvertible { package let description: String }

    package init(path: String, users: [PairedUser] = []) {
        self.path = path
        self.users = users
    }

    package static func path(stateDir: String) -> String { stateDir + "/" + fileName }

    /// `users revoke` of someone who is not paired but in `messenger`'s configured allowlist:
    /// where to remove them instead.
    package static func notPaired(_ id: String, configuredIn messenger: String) -> RemoteError {
        RemoteError.invalidParams(
            "\(id) was not paired: it is in the configured allowlist of \(messenger) (\(messenger).allowedUsers in config.yaml or "
                + "\(Allowlist.environmentName(messenger))); remove it there and restart pi-relayd")
    }

    /// The saved list; none when the file does not exist yet.
    package static func load(path: String) throws -> PairedUsers {
        let data: [UInt8]
        do {
            guard let file = try WholeRead.contents(path) else { return PairedUsers(path: path) }
            data = file.bytes
        } catch {
            throw LoadError(description: error.description)
        }
        let json: JSONValue
        do { json = try JSONValue.parse(bytes: data) } catch {
            throw LoadError(description: "\(path) is not valid JSON: \(error)")
        }
        guard let list = json["users"]?.arrayValue else { throw LoadError(description: "\(path) has no \"users\" list") }
        return PairedUsers(path: path, users: list.compactMap(PairedUser.init(json:)))
    }

    package func save() throws {
        let json: JSONValue = ["version": 1, "users": .array(users.map(\.json))]
        try AtomicFile.writeOrThrow(json.serializedBytes() + [0x0A], to: path)
    }

    package func ids(messenger: String) -> Set<String> {
        Set(users.filter { $0.messenger == messenger }.map(\.id))
    }

    /// Adds (or renames) a user; false when they were already there under that name.
    package mutating func add(_ user: PairedUser) -> Bool {
        if let index = users.firstIndex(where: { $0.messenger == user.messenger && $0.id == user.id }) {
            guard users[index].name != user.name else { return false }
            users[index] = user
            return true
        }
        users.append(user)
        return true
    }

    /// Removes the user `id`, of `messenger` or of any messenger; returns who was removed.
    package mutating func remove(id: String, messenger: String?) -> [PairedUser] {
        let gone = users.filter { $0.id == id && (messenger == nil || $0.messenger == messenger) }
        users.removeAll { $0.id == id && (messenger == nil || $0.messenger == messenger) }
        return gone
    }
}
