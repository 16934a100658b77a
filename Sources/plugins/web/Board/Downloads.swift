import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// Files posted to a page (a long answer's `.md`), served by an unguessable token and only from
/// the spool folder, where pi-relayd puts every file it posts. They are this plugin's to remove
/// (docs/PROTOCOL.md §8): the newest `keep` stay, the older ones are deleted, and the list is
/// saved, so a link a page shows still works after a restart and no copy is left unreachable.
actor Downloads {
    static let keep = 200
    static let file = "downloads.json"

    struct Offered: Codable, Sendable {
        var token: String
        var path: String
        var name: String
    }

    private let spoolDir: String
    private let store: StateStore?
    /// Oldest first.
    private var offered: [Offered]

    init(spoolDir: String, store: StateStore? = nil) {
        let spool = spoolDir.standardizedPath
        self.spoolDir = spool
        self.store = store
        // What a page may still link to, as saved; a file gone meanwhile is offered no more.
        offered = (store?.load([Offered].self, from: Self.file) ?? []).filter {
            Self.inSpool($0.path, spool) && FileManager.default.fileExists(atPath: $0.path)
        }
    }

    /// The file's link for a page, or just its name when it is not in the spool folder.
    func offer(_ file: PostedFile) async -> JSONValue {
        guard Self.inSpool(file.path, spoolDir) else { return ["name": .string(file.filename)] }
        let token = RandomName.hex(bytes: 16)
        offered.append(Offered(token: token, path: file.path, name: file.filename))
        while offered.count > Self.keep { unlink(offered.removeFirst().path) }
        await store?.save(offered, to: Self.file)
        return ["name": .string(file.filename), "url": .string("/files/" + token)]
    }

    func file(_ token: String) -> (path: String, name: String)? {
        offered.last { $0.token == token }.map { ($0.path, $0.name) }
    }

    private static func inSpool(_ path: String, _ spool: String) -> Bool {
        let path = path.standardizedPath
        return path.isWithin(spool) && path != spool
    }
}
