import Foundation
import Testing

@testable import PiRelaySDK

/// A plugin's state files: written whole through a temporary file, owner-only, flushed or not.
@Suite struct StateStoreTests {
    @Test(arguments: [true, false]) func aSavedValueReadsBackOwnerOnly(durable: Bool) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = StateStore(directory: folder)
        #expect(await store.save(["a": [1, 2]], to: "one.json", durable: durable))
        #expect(await store.save(["a": [3]], to: "one.json", durable: durable), "a second save replaces the first")
        #expect(store.load([String: [Int]].self, from: "one.json") == ["a": [3]])
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: store.path("one.json"))[.posixPermissions] as? Int)
        #expect(mode & 0o777 == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["one.json"], "no temporary file is left")
        #expect(await store.failedWrites == 0)
    }

    @Test(arguments: [true, false]) func aWriteTheDiskRefusesIsCounted(durable: Bool) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = StateStore(directory: folder)
        #expect(await !store.save([1], to: "no-such-folder/one.json", durable: durable))
        #expect(await store.failedWrites == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }
}
