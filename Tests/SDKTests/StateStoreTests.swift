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

    /// Snapshots taken in order may reach the store out of order: an older version never
    /// overwrites a newer one, and still counts as saved (the newer one holds it).
    @Test func anOlderVersionDoesNotOverwriteANewerOne() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = StateStore(directory: folder)
        #expect(await store.save(["r", "f"], to: "page.json", version: 2))
        #expect(await store.save(["r"], to: "page.json", version: 1))
        #expect(store.load([String].self, from: "page.json") == ["r", "f"])
        #expect(await store.save(["r", "f", "g"], to: "page.json", version: 3))
        #expect(store.load([String].self, from: "page.json") == ["r", "f", "g"])
        #expect(await store.save(["other"], to: "other.json", version: 1), "each file has its own versions")
        #expect(store.load([String].self, from: "other.json") == ["other"])
    }

    /// The same for a file rewritten in place (an inbox journal, a run's message ids). A version
    /// the disk refused does not count as written: an older one after it still goes, and says so.
    @Test(arguments: [true, false]) func anOlderVersionGoesOnlyWhenNoNewerOneIsOnDisk(inPlace: Bool) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = StateStore(directory: folder)
        func write(_ value: [Int], _ name: String, version: Int) async -> Bool {
            inPlace ? await store.rewrite(value, in: name, version: version) : await store.save(value, to: name, version: version)
        }
        #expect(await write([1, 2], "journal.json", version: 2))
        #expect(await write([1], "journal.json", version: 1), "held by the newer one")
        #expect(store.load([Int].self, from: "journal.json") == [1, 2])
        // A folder where the file would go: the disk refuses version 2.
        try FileManager.default.createDirectory(atPath: store.path("held.json"), withIntermediateDirectories: false)
        #expect(await !write([1, 2], "held.json", version: 2))
        try FileManager.default.removeItem(atPath: store.path("held.json"))
        #expect(await write([1], "held.json", version: 1))
        #expect(store.load([Int].self, from: "held.json") == [1])
    }

    @Test(arguments: [true, false]) func aWriteTheDiskRefusesIsCounted(durable: Bool) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = StateStore(directory: folder)
        #expect(await !store.save([1], to: "no-such-folder/one.json", durable: durable))
        #expect(await store.failedWrites == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        let problems = await store.problems
        #expect(problems.count == 1 && problems[0].hasPrefix("no-such-folder/one.json not saved: cannot "), "\(problems)")
        #expect(problems[0].contains("No such file or directory"), "says why: \(problems)")
        // Reported until a write of that file succeeds.
        try FileManager.default.createDirectory(atPath: folder + "/no-such-folder", withIntermediateDirectories: false)
        #expect(await store.save([2], to: "other.json", durable: durable))
        #expect(await store.problems == problems)
        #expect(await store.save([1], to: "no-such-folder/one.json", durable: durable))
        #expect(await store.problems.isEmpty)
    }

    /// A file rewritten in place says why the disk refused it too, until it is written again or
    /// removed.
    @Test func aRewriteTheDiskRefusesIsAProblemUntilWrittenOrRemoved() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = StateStore(directory: folder)
        // A folder where the first slot would be: open(2) refuses it.
        try FileManager.default.createDirectory(atPath: store.path("live.json"), withIntermediateDirectories: false)
        #expect(await !store.rewrite([1], in: "live.json"))
        let problems = await store.problems
        #expect(problems.count == 1 && problems[0].hasPrefix("live.json not saved: cannot open "), "\(problems)")
        #expect(problems[0].contains("Is a directory"), "\(problems)")
        await store.remove("live.json")
        #expect(await store.problems.isEmpty)
    }

    @Test func aRewrittenFileReadsBackWhateverItsLengthBefore() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = StateStore(directory: folder)
        let long = String(repeating: "x", count: 9000)
        let slots = RewrittenFile.slots(store.path("live.json"))
        #expect(await store.rewrite(["a": long], in: "live.json"))
        #expect(await store.rewrite(["a": "y"], in: "live.json"))
        #expect(store.load([String: String].self, from: "live.json") == ["a": "y"])
        let inodes = try slots.map { try #require(try FileManager.default.attributesOfItem(atPath: $0)[.systemFileNumber] as? Int) }
        // The slots take turns: each write goes over the older copy, in place.
        #expect(await store.rewrite(["a": "z"], in: "live.json"))
        #expect(await store.rewrite(["a": long + long], in: "live.json"))
        #expect(await store.rewrite(["a": "w"], in: "live.json"))
        #expect(store.load([String: String].self, from: "live.json") == ["a": "w"])
        #expect(await store.rewrite(["a": "v"], in: "live.json"))
        #expect(store.load([String: String].self, from: "live.json") == ["a": "v"])
        for (slot, inode) in zip(slots, inodes) {
            let attributes = try FileManager.default.attributesOfItem(atPath: slot)
            #expect(attributes[.systemFileNumber] as? Int == inode, "written in place, not replaced")
            #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o777 } == 0o600)
            #expect(try #require(attributes[.size] as? Int) < 4200, "a slot much longer than its content is cut")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["live.json", "live.json.b"], "no temporary file")
        await store.remove("live.json")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        #expect(store.load([String: String].self, from: "live.json") == nil)
        #expect(await !store.rewrite([1], in: "no-such-folder/live.json"))
        #expect(await store.failedWrites == 1)
    }

    /// A writer killed in the middle of a write leaves it torn, possibly still parsing (a number
    /// spliced into the old copy's): the reader takes the copy before it, and the restarted
    /// writer writes over the torn copy, never over the whole one.
    @Test func aTornWriteLeavesTheCopyBeforeIt() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = StateStore(directory: folder)
        let path = store.path("holds.json")
        #expect(await store.rewrite(["at": 1_737_000_000.5], in: "holds.json"))
        #expect(await store.rewrite(["at": 1_737_000_001.5], in: "holds.json"))
        // The second write torn: its first bytes new, the rest as before. It parses as JSON.
        let second = try #require(FileManager.default.contents(atPath: path + ".b"))
        var torn = [UInt8](second)
        let digit = try #require(torn.lastIndex(of: UInt8(ascii: "1")))
        torn[digit] = UInt8(ascii: "9")
        try Data(torn).write(to: URL(fileURLWithPath: path + ".b"))
        RewrittenFile.forget(path)
        #expect(store.load([String: Double].self, from: "holds.json") == ["at": 1_737_000_000.5])
        // The next write goes over the torn copy; the whole one is kept until the one after.
        #expect(await store.rewrite(["at": 1_737_000_002.5], in: "holds.json"))
        #expect(store.load([String: Double].self, from: "holds.json") == ["at": 1_737_000_002.5])
        #expect(RewrittenFile.parse([UInt8](try #require(FileManager.default.contents(atPath: path))))?.sequence == 1)
        // A header torn after its number: the number is checked with the content.
        var renumbered = [UInt8](try #require(FileManager.default.contents(atPath: path + ".b")))
        renumbered[11] = UInt8(ascii: "7")
        try Data(renumbered).write(to: URL(fileURLWithPath: path + ".b"))
        RewrittenFile.forget(path)
        #expect(store.load([String: Double].self, from: "holds.json") == ["at": 1_737_000_000.5])
        // Both torn: nothing, rather than a spliced value.
        for slot in RewrittenFile.slots(path) {
            var bytes = [UInt8](try #require(FileManager.default.contents(atPath: slot)))
            bytes[bytes.count - 3] ^= 0x01
            try Data(bytes).write(to: URL(fileURLWithPath: slot))
        }
        RewrittenFile.forget(path)
        #expect(store.load([String: Double].self, from: "holds.json") == nil)
    }

    /// A file an earlier version wrote whole (no slot header) reads as it was, and is the older
    /// copy once the file is rewritten.
    @Test func aFileWrittenWholeBeforeReadsBackAndIsTheOlderCopy() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = StateStore(directory: folder)
        #expect(await store.save(["v": 1], to: "old.json"))
        #expect(store.load([String: Int].self, from: "old.json") == ["v": 1])
        #expect(await store.rewrite(["v": 2], in: "old.json"))
        #expect(store.load([String: Int].self, from: "old.json") == ["v": 2])
        #expect(try String(contentsOfFile: store.path("old.json"), encoding: .utf8) == #"{"v":1}"#, "kept until the next write")
        #expect(await store.rewrite(["v": 3], in: "old.json"))
        #expect(store.load([String: Int].self, from: "old.json") == ["v": 3])
        // An earlier version ran since (a downgrade) and wrote the file whole, after both slots:
        // what it wrote is the newest, and the next write goes over the other slot.
        try await Task.sleep(for: .milliseconds(20))
        #expect(await store.save(["v": 4], to: "old.json"))
        RewrittenFile.forget(store.path("old.json"))
        #expect(store.load([String: Int].self, from: "old.json") == ["v": 4])
        #expect(await store.rewrite(["v": 5], in: "old.json"))
        #expect(store.load([String: Int].self, from: "old.json") == ["v": 5])
        #expect(try String(contentsOfFile: store.path("old.json"), encoding: .utf8) == #"{"v":4}"#)
    }
}
