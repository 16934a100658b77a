import PiRelaySDK
import Testing

@testable import WebPlugin

/// `git diff-tree -p` output as a page gets it.
@Suite struct DiffParserTests {
    static let output = """
        diff --git a/src/app.swift b/src/app.swift
        index 1111111..2222222 100644
        --- a/src/app.swift
        +++ b/src/app.swift
        @@ -1,3 +1,3 @@ struct App {
         let a = 1
        -let b = 2
        +let b = 3
        \\ No newline at end of file
        diff --git a/old name.txt b/new name.txt
        similarity index 90%
        rename from old name.txt
        rename to new name.txt
        diff --git a/logo.png b/logo.png
        new file mode 100644
        index 0000000..3333333
        Binary files /dev/null and b/logo.png differ
        diff --git a/.env b/.env
        new file mode 100644
        --- /dev/null
        +++ b/.env
        @@ -0,0 +1 @@
        +TOKEN=s3cret
        diff --git a/gone.txt b/gone.txt
        deleted file mode 100644
        --- a/gone.txt
        +++ /dev/null
        @@ -1 +0,0 @@
        -bye
        """

    @Test func filesHunksCountsRenamesBinariesAndNoSecrets() {
        let files = DiffParser.files(Self.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
        #expect(files.map { $0["path"]?.stringValue ?? "" } == ["src/app.swift", "new name.txt", "logo.png", "gone.txt"])
        #expect(files[0]["added"] == 1 && files[0]["removed"] == 1 && files[0]["hunks"]?[0]?["header"] == "@@ -1,3 +1,3 @@ struct App {")
        #expect(files[0]["hunks"]?[0]?["lines"]?.arrayValue?.count == 4)
        #expect(files[1]["status"] == "renamed" && files[1]["oldPath"] == "old name.txt")
        #expect(files[2]["status"] == "added" && files[2]["binary"] == true)
        #expect(files[3]["status"] == "deleted" && files[3]["path"] == "gone.txt" && files[3]["removed"] == 1)
    }

    @Test func aHugeFileIsCutAndMarked() {
        let lines = ["diff --git a/big b/big", "--- a/big", "+++ b/big", "@@ -0,0 +1,3000 @@"] + (0..<3000).map { "+line \($0)" }
        let file = DiffParser.files(lines)[0]
        #expect(file["truncated"] == true && file["added"] == 3000)
        #expect(file["hunks"]?[0]?["lines"]?.arrayValue?.count == DiffParser.maxLinesPerFile)
    }

    /// git quotes a name holding `"`, `\` or a control character even with `core.quotepath`
    /// off; a secret file's name is read back before it is checked, so it stays hidden.
    @Test func quotedNamesAreReadBackAndSecretOnesStayHidden() {
        func added(_ quoted: String) -> [String] {
            let inner = quoted.dropFirst().dropLast()
            return [
                "diff --git \"a/\(inner)\" \"b/\(inner)\"", "new file mode 100644", "--- /dev/null", "+++ \"b/\(inner)\"", "@@ -0,0 +1 @@",
                "+SECRET",
            ]
        }
        let lines =
            added(#""certs\"old/server.key""#) + added(#""tab\tdir.pem""#) + added(#""x\\y/.npmrc""#) + added(#""a\"b.txt""#)
            + added(#""caf\303\251.txt""#)
            + [
                "diff --git \"a/old\\\"name.txt\" \"b/new\\\"name.txt\"", "similarity index 100%", "rename from \"old\\\"name.txt\"",
                "rename to \"new\\\"name.txt\"",
            ]
        let files = DiffParser.files(lines)
        #expect(files.map { $0["path"]?.stringValue ?? "" } == ["a\"b.txt", "café.txt", "new\"name.txt"])
        #expect(files.last?["oldPath"] == "old\"name.txt")
        #expect(DiffParser.unquoted(#""tab\tdir.pem""#) == "tab\tdir.pem" && DiffParser.unquoted("plain") == "plain")
    }
}

extension DiffParserTests {
    /// A repository whose top folder is where credentials live (`~/.aws`, `~/.kube`) hides the
    /// files the attachments guard would refuse there: `credentials` and `config` are secret in
    /// `.aws`, not in a project.
    @Test func aCredentialsFolderHidesItsFiles() {
        let lines = [
            "diff --git a/credentials b/credentials", "--- a/credentials", "+++ b/credentials", "@@ -1 +1 @@", "-old", "+aws_secret_access_key=x",
        ]
        #expect(DiffParser.files(lines, in: "/home/u/.aws").isEmpty)
        #expect(DiffParser.files(lines, in: "/home/u/project").count == 1, "an ordinary project's file named credentials is shown")
    }
}

extension DiffParserTests {
    /// A binary file has no `+++` line, so its name comes from the `diff --git` header alone,
    /// where it stands twice. A name holding `" b/"` is read whole, so a file in `.ssh/old b/`
    /// is known for what it is and stays hidden.
    @Test func aBinaryNameHoldingSpaceBSlashIsReadWhole() {
        func binary(_ name: String) -> [String] {
            ["diff --git a/\(name) b/\(name)", "new file mode 100644", "index 0000000..3333333", "Binary files /dev/null and b/\(name) differ"]
        }
        let files = DiffParser.files(binary("art b/logo.png") + binary(".ssh/old b/key.bin") + binary("a b/b b/c.bin"))
        #expect(files.map { $0["path"]?.stringValue ?? "" } == ["art b/logo.png", "a b/b b/c.bin"])
        #expect(DiffParser.path(fromHeader: "diff --git a/x b/y") == "y", "a rename's header: its rename lines name both sides")
    }
}
