import FoundationEssentials
import PiRelaySDK
import Testing

@testable import Supervisor

#if canImport(Glibc)
import Glibc
#endif

/// The folders `doctor`, `setup`, `plugin check` and `render` run a child in: new ones, only the
/// user's. A name known in advance (`pi-relayd-doctor-<pid>`) could be made first by another
/// user of a shared /tmp, holding an extension pi would load from its working folder.
@Suite struct PrivateTempFolderTests {
    @Test func eachFolderIsNewAndOnlyTheUsers() throws {
        let first = try PrivateTempFolder.make("pi-relayd-doctor")
        let second = try PrivateTempFolder.make("pi-relayd-doctor")
        defer {
            rmdir(first)
            rmdir(second)
        }
        #expect(first != second)
        #expect(first.hasPrefix(UserFolders.temporary + "/pi-relayd-doctor-") && !first.hasSuffix("-\(getpid())"))
        for folder in [first, second] {
            var info = stat()
            #expect(lstat(folder, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR && info.st_mode & 0o777 == 0o700 && info.st_uid == getuid())
        }
    }

    @Test func aFolderThatCannotBeMadeIsAnError() {
        #expect(throws: RemoteError.self) { try PrivateTempFolder.make("no/such/folder/x") }
    }
}
