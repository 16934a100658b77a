import Foundation
import PiRelaySDK
import Testing

/// A state file exactly as a released plugin wrote it: it must still load, and saving what loaded
/// must write the same bytes, so a plugin upgraded mid-conversation reads its journal, its live
/// messages and its holds, and an older plugin started again after a downgrade reads them too.
enum StateFixture {
    /// Loads `literal` from a file named `name` through a `StateStore`, saves what it read, and
    /// checks the bytes; returns the value for the caller's own checks.
    static func roundTrip<T: Codable & Sendable>(
        _ type: T.Type, _ literal: String, as name: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("state-fixture-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = StateStore(directory: folder)
        try Data(literal.utf8).write(to: URL(fileURLWithPath: store.path(name)))
        let value = try #require(
            store.load(type, from: name), "today's code cannot read the \(name) a released plugin wrote", sourceLocation: sourceLocation)
        #expect(await store.save(value, to: name + ".again"), sourceLocation: sourceLocation)
        let again = String(decoding: try Data(contentsOf: URL(fileURLWithPath: store.path(name + ".again"))), as: UTF8.self)
        #expect(again == literal, "\(name) is written differently now", sourceLocation: sourceLocation)
        return value
    }
}
