import Foundation
import Testing

@testable import PiRelaySDK

/// A plugin's state files: written whole through a temporary file, owner-only, flushed or not;
/// or rewritten in place, for state that changes at every step of a stream.
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

    @Test func aRewrittenFileReadsBackWhateverItsLengthBefore() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = StateStore(directory: folder)
        let long = String(repeating: "x", count: 900)
        #expect(await store.rewrite(["a": long], in: "live.json"))
        let inode = try #require(try FileManager.default.attributesOfItem(atPath: store.path("live.json"))[.systemFileNumber] as? Int)
        // Shorter: padded to the old length, so no old tail is left to read.
        #expect(await store.rewrite(["a": "y"], in: "live.json"))
        #expect(store.load([String: String].self, from: "live.json") == ["a": "y"])
        let attributes = try FileManager.default.attributesOfItem(atPath: store.path("live.json"))
        #expect(attributes[.systemFileNumber] as? Int == inode, "written in place, not replaced")
        #expect(attributes[.size] as? Int == 900 + #"{"a":""}"#.utf8.count)
        #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o777 } == 0o600)
        // Longer again, then much shorter than a long file: replaced whole, so the padding stays small.
        #expect(await store.rewrite(["a": long + long + long + long + long + long], in: "live.json"))
        #expect(await store.rewrite(["a": "z"], in: "live.json"))
        #expect(store.load([String: String].self, from: "live.json") == ["a": "z"])
        #expect(try FileManager.default.attributesOfItem(atPath: store.path("live.json"))[.size] as? Int == #"{"a":"z"}"#.utf8.count)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["live.json"], "no temporary file is left")
        #expect(await !store.rewrite([1], in: "no-such-folder/live.json"))
        #expect(await store.failedWrites == 1)
    }
}
