import Foundation
import PiRelaySDK
import Testing

@testable import AttachmentsPlugin

#if canImport(Glibc)
import Glibc
#endif

@Suite("attachments.outbound and the path guard")
struct OutboundTests {
    let workspace = TemporaryFolder()
    let outside = TemporaryFolder()
    let spool = TemporaryFolder()

    init() {
        workspace.write("src/main.swift", Array("print(\"hi\")\n".utf8))
        workspace.write("shot.txt", Samples.png)
        outside.write("secret.txt", Array("outside the workspace\n".utf8))
    }

    func send(_ path: String, maxBytes: Int = 1 << 20) async throws(RemoteError) -> JSONValue {
        try await Outbound(spoolDir: spool.path + "/spool")
            .run(["cwd": .string(workspace.path), "path": .string(path), "maxBytes": JSONValue(maxBytes)])
    }

    func refusal(_ path: String, maxBytes: Int = 1 << 20) async -> RemoteError? {
        do {
            _ = try await send(path, maxBytes: maxBytes)
            return nil
        } catch {
            return error
        }
    }

    @Test func aWorkspaceFileIsCopiedToTheSpool() async throws {
        let result = try await send("src/main.swift")
        let copy = try #require(result["path"]?.stringValue)
        #expect(copy.hasPrefix(spool.path + "/spool/outbound-"))
        #expect(FileManager.default.contents(atPath: copy) == Data("print(\"hi\")\n".utf8))
        #expect(result["filename"] == "main.swift")
        #expect(result["size"] == 12)
        #expect(result["mimeType"] == "text/plain; charset=utf-8")
        // The messenger deletes the spool copy after uploading; the original must not be that file.
        #expect(FileManager.default.fileExists(atPath: workspace.path + "/src/main.swift"))
        var st = stat()
        #expect(stat(copy, &st) == 0 && st.st_mode & 0o777 == 0o600)
    }

    /// A workspace file's name is shown in the chat: a line break or a direction override in it
    /// is cleaned as in a chat's names, and an empty file is refused, not sent as nothing.
    @Test func aFilesNameIsCleanedAndAnEmptyFileRefused() async throws {
        workspace.write("a\n✅ approved.txt", Array("x\n".utf8))
        workspace.write("inv\u{202E}txt.exe", Array("x\n".utf8))
        #expect(try await send("a\n✅ approved.txt")["filename"] == "a ✅ approved.txt")
        #expect(try await send("inv\u{202E}txt.exe")["filename"] == "inv txt.exe")
        workspace.write("empty.log", [])
        #expect(await refusal("empty.log")?.message.contains("is empty") == true)
    }

    @Test func theMimeTypeComesFromTheBytes() async throws {
        #expect(try await send("shot.txt")["mimeType"] == "image/png")
    }

    @Test func anAbsolutePathInsideTheWorkspaceIsFine() async throws {
        #expect(try await send(workspace.path + "/src/./main.swift")["filename"] == "main.swift")
    }

    /// As pi's own tools read a path (pi-extension-api.md §11, trap 13): `@` dropped, `~/`
    /// expanded, a no-break space a plain one; the secret rules still hold after.
    @Test func aPathIsReadAsPisToolsReadIt() throws {
        workspace.write("my notes.md", Array("notes\n".utf8))
        workspace.write(".env", Array("KEY=1\n".utf8))
        let folder = String(workspace.path.split(separator: "/").last ?? "")
        let parent = String(workspace.path.dropLast(folder.count + 1))
        let guardian = PathGuard(cwd: workspace.path, home: parent)
        for path in ["@src/main.swift", "~/\(folder)/src/main.swift", "@~/\(folder)/src/main.swift", "my\u{00A0}notes.md"] {
            guard case .success(let file) = guardian.open(path, maxBytes: 1 << 20) else {
                Issue.record("\(path) was refused: \(guardian.open(path, maxBytes: 1 << 20))")
                continue
            }
            close(file.fd)
        }
        guard case .failure(let refused) = guardian.open("@.env", maxBytes: 1 << 20) else {
            Issue.record("@.env was sent")
            return
        }
        #expect(refused.message.contains("environment file"), "\(refused)")
    }

    @Test func dotDotCannotLeaveTheWorkspace() async {
        let relative = "../" + (outside.path as NSString).lastPathComponent + "/secret.txt"
        let error = await refusal(relative)
        #expect(error?.code == .invalidParams)
        #expect(error?.message.contains("is outside the session's folder") == true)
        #expect(await refusal("src/../../etc/passwd")?.code == .invalidParams)
    }

    @Test func anAbsolutePathOutsideTheWorkspaceIsRefused() async {
        #expect(await refusal(outside.path + "/secret.txt")?.code == .invalidParams)
        #expect(await refusal("/etc/hostname")?.code == .invalidParams)
        // Whether it exists or not: the answer must not reveal files outside.
        #expect(await refusal("/etc/no-such-file")?.code == .invalidParams)
    }

    @Test func aSymlinkToAFileOutsideIsRefused() async {
        workspace.link("innocent.txt", to: outside.path + "/secret.txt")
        let error = await refusal("innocent.txt")
        #expect(error?.code == .invalidParams)
        #expect(error?.message.contains("through a symbolic link") == true)
    }

    @Test func aSymlinkedFolderLeadingOutsideIsRefused() async {
        workspace.link("vendor", to: outside.path)
        #expect(await refusal("vendor/secret.txt")?.code == .invalidParams)
        #expect(await refusal(workspace.path + "/vendor/secret.txt")?.code == .invalidParams)
    }

    @Test func aSymlinkInsideTheWorkspaceIsFollowed() async throws {
        workspace.link("latest.swift", to: "src/main.swift")
        let result = try await send("latest.swift")
        #expect(result["filename"] == "latest.swift")
        #expect(result["size"] == 12)
    }

    @Test(
        "secret-looking paths are refused whatever their case",
        arguments: [
            ".env", ".ENV", ".Env.local", ".env.production", "config/.envrc", "ID_RSA", "keys/id_ed25519",
            ".SSH/config", ".ssh/known_hosts", "certs/server.PEM", "tls/private.key", "store.p12",
            ".git/config", ".GIT/HEAD", ".aws/credentials", ".config/gcloud/application_default_credentials.json",
            ".azure/accessTokens.json", ".kube/config", ".netrc", ".npmrc", ".pypirc", ".docker/config.json",
            "src/../.env", "./.env",
        ])
    func secrets(path: String) async {
        workspace.write(path, Array("TOKEN=abc\n".utf8))
        let error = await refusal(path)
        #expect(error?.code == .invalidParams)
        #expect(error?.message.contains("is not sent:") == true)
    }

    @Test func aHarmlessNameLinkedToASecretIsRefused() async {
        workspace.write(".env", Array("TOKEN=abc\n".utf8))
        workspace.link("notes.txt", to: ".env")
        let error = await refusal("notes.txt")
        #expect(error?.message == "`notes.txt` is not sent: `.env` looks like an environment file with secrets")
    }

    /// A hard link cannot be resolved: the key linked in under a harmless name is the key.
    @Test func aHardLinkIsRefusedWhereverItsOtherNameIs() async throws {
        outside.write("id_rsa", Array("-----BEGIN OPENSSH PRIVATE KEY-----\n".utf8))
        #expect(Glibc.link(outside.path + "/id_rsa", workspace.path + "/notes.txt") == 0)
        let error = await refusal("notes.txt")
        #expect(error?.code == .invalidParams)
        #expect(error?.message.contains("other hard links") == true, "\(String(describing: error))")
        // A file with one name is sent as before.
        #expect(try await send("src/main.swift")["size"] == 12)
    }

    @Test func aSecretNameLinkedToAHarmlessFileIsRefused() async {
        workspace.link(".env", to: "src/main.swift")
        #expect(await refusal(".env")?.code == .invalidParams)
    }

    @Test func lookalikesThatAreNotSecretsAreSent() async throws {
        for path in ["venv.txt", "docs/environment.md", "keyboard.swift", "src/identity.swift", "git/config"] {
            workspace.write(path, Array("ok\n".utf8))
            #expect(try await send(path)["size"] == 3, "\(path)")
        }
    }

    @Test func aFileOverTheUploadLimitIsRefused() async {
        workspace.write("big.bin", [UInt8](repeating: 7, count: 3000))
        let error = await refusal("big.bin", maxBytes: 2048)
        #expect(error == .invalidParams("`big.bin` is 2.9 KB, over this chat's upload limit of 2 KB"))
    }

    @Test func aFolderIsRefused() async {
        #expect(await refusal("src") == .invalidParams("`src` is a folder; only single files can be sent"))
        #expect(await refusal(".")?.code == .invalidParams)
    }

    @Test func aMissingFileIsNotFound() async {
        let error = await refusal("src/nope.swift")
        #expect(error?.code == .notFound)
        #expect(error?.message.contains("there is no file `src/nope.swift`") == true)
    }

    @Test func aPipeIsNotARegularFile() async {
        #expect(mkfifo(workspace.path + "/queue", 0o600) == 0)
        #expect(await refusal("queue") == .invalidParams("`queue` is not a regular file (it is a device, pipe or socket)"))
    }

    @Test func aMissingWorkspaceIsNotFound() async {
        let error: RemoteError?
        do {
            _ = try await Outbound(spoolDir: spool.path).run(["cwd": "/nonexistent/workspace", "path": "a.txt", "maxBytes": 10])
            error = nil
        } catch let e { error = e }
        #expect(error?.code == .notFound)
    }

    @Test(
        "incomplete params are invalid",
        arguments: [
            ["path": "a.txt", "maxBytes": 10], ["cwd": "relative/dir", "path": "a.txt", "maxBytes": 10],
            ["cwd": "/tmp", "maxBytes": 10], ["cwd": "/tmp", "path": "a.txt"], ["cwd": "/tmp", "path": "a.txt", "maxBytes": 0],
        ] as [JSONValue])
    func incompleteParams(params: JSONValue) async {
        do {
            _ = try await Outbound(spoolDir: spool.path).run(params)
            Issue.record("accepted \(params)")
        } catch {
            #expect(error.code == .invalidParams)
        }
    }
}
