import FoundationEssentials
import PiRelaySDK

/// `state/revocations.json` (0600): this machine's side of revoking users across a federation.
/// The revocations made here wait in `made` until the federation's report numbers them (the
/// database has them); `applied` is the last numbered revocation this machine has taken in, which
/// its heartbeat publishes so the others know its allowlist no longer holds whoever was revoked
/// up to there. Pure: the pairing desk saves it and acts on what it returns.
package struct Revocations: Sendable, Equatable {
    package static let fileName = "revocations.json"

    package let path: String
    package private(set) var made: [Revocation] = []
    package private(set) var applied = 0

    package init(path: String, made: [Revocation] = [], applied: Int = 0) {
        self.path = path
        self.made = made
        self.applied = applied
    }

    package static func path(stateDir: String) -> String { stateDir + "/" + fileName }

    /// The saved state; none when the file does not exist yet.
    package static func load(path: String) throws -> Revocations {
        guard let file = try WholeRead.contents(path) else { return Revocations(path: path) }
        let json: JSONValue
        do { json = try JSONValue.parse(bytes: file.bytes) } catch {
            throw PairedUsers.LoadError(description: "\(path) is not valid JSON: \(error)")
        }
        guard let made = json["made"]?.arrayValue else { throw PairedUsers.LoadError(description: "\(path) has no \"made\" list") }
        return Revocations(path: path, made: made.compactMap { try? Revocation(json: $0) }, applied: json["applied"]?.intValue ?? 0)
    }

    package func save() throws {
        let json: JSONValue = ["version": 1, "made": made.json, "applied": JSONValue(applied)]
        try AtomicFile.writeOrThrow(json.serializedBytes() + [0x0A], to: path)
    }

    /// `user` revoked here on `messenger`, which the federation shares, at `now`.
    package mutating func record(messenger: String, user: String, now: Date) {
        made.removeAll { $0.messenger == messenger && $0.user == user }
        made.append(Revocation(messenger: messenger, user: user, stamp: UUID().uuidString, at: ISO8601.string(now)))
    }

    /// `user` paired here again: a revocation of theirs the database does not have yet is void.
    /// True when there was one.
    package mutating func forget(messenger: String, user: String) -> Bool {
        let before = made.count
        made.removeAll { $0.messenger == messenger && $0.user == user }
        return made.count != before
    }

    /// The revocations made here that `report` does not list yet: until it does, the other
    /// machines' allowlists may still hold these users, and this machine leaves them out itself.
    package func unreported(in report: [Revocation]) -> [Revocation] {
        let stamps = Set(report.map(\.stamp))
        return made.filter { !stamps.contains($0.stamp) }
    }

    /// Takes in a report's revocations: the ones made here that it numbers are done with, and
    /// those numbered past `applied` are returned, oldest first, for this machine to act on.
    package mutating func take(_ report: [Revocation]) -> [Revocation] {
        let stamps = Set(report.map(\.stamp))
        made.removeAll { stamps.contains($0.stamp) }
        let new = report.filter { ($0.number ?? 0) > applied }.sorted { ($0.number ?? 0) < ($1.number ?? 0) }
        applied = max(applied, new.last?.number ?? 0)
        return new
    }

    /// Whether a pairing made at `pairedAt` predates `revocation` and so goes with it. A time
    /// that does not read counts as older: a gate that cannot decide denies.
    package static func voids(pairedAt: String, _ revocation: Revocation) -> Bool {
        guard let paired = ISO8601.date(pairedAt), let revoked = ISO8601.date(revocation.at) else { return true }
        return paired <= revoked
    }
}
