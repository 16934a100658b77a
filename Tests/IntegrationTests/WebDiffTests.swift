import Foundation
import PiRelaySDK
import Testing

/// The diff viewer on a real git repository: the working tree against HEAD (changed, untracked
/// and binary files; secret files hidden), the changes since the run's snapshot, and the
/// repository's .git untouched by any of it.
@Suite struct WebDiffTests {
    static let git = "git -c user.email=t@example.net -c user.name=t"

    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func theWorkingTreeAndThisRunsChangesWithoutWritingTheRepository() async throws {
        try await WebHome.with { web in
            let repo = web.sessions.project
            try await web.shell(
                "git init -q && printf 'one\\ntwo\\nthree\\n' > app.txt && \(Self.git) add -A && \(Self.git) commit -qm first", in: repo)
            let (cookie, _) = try await web.signIn()
            let browser = web.client(cookie: cookie)
            let id = try await web.sessions.new(name: "diff", cwd: repo)
            try await web.shell(
                "printf 'one\\nTWO\\nthree\\n' > app.txt && echo new > new.txt && echo TOKEN=s3cret > .env && echo key > id_rsa && "
                    + "printf 'a\\000b' > blob.bin && echo x > '<img src=x onerror=alert(1)>.txt'", in: repo)
            let gitBefore = try await web.shell("find .git -type f | sort | xargs sha256sum; find .git | sort", in: repo)

            let page = WebPage(base: web.base, cookie: cookie)
            defer { page.close() }
            try await page.wait("the sessions list") {
                $0["type"] == "sessions" && ($0["sessions"]?.arrayValue ?? []).contains { $0["id"]?.stringValue == id }
            }
            let head = try await browser.get("/api/sessions/\(id)/diff")
            #expect(head.status == 200, "\(head.text)")
            let files = head.json["files"]?.arrayValue ?? []
            let byPath = Dictionary(uniqueKeysWithValues: files.compactMap { file in file["path"]?.stringValue.map { ($0, file) } })
            #expect(Set(byPath.keys) == ["app.txt", "new.txt", "blob.bin", "<img src=x onerror=alert(1)>.txt"], "\(byPath.keys)")
            #expect(byPath["app.txt"]?["added"] == 1 && byPath["app.txt"]?["removed"] == 1 && byPath["app.txt"]?["status"] == "modified")
            #expect(byPath["app.txt"]?["hunks"]?[0]?["lines"]?.arrayValue?.contains("+TWO") == true, "\(byPath["app.txt"] ?? .null)")
            #expect(byPath["new.txt"]?["status"] == "added" && byPath["blob.bin"]?["binary"] == true)
            #expect(head.json["branch"]?.stringValue?.isEmpty == false)

            // A prompt from the page starts a run: its snapshot is the base of "this run".
            _ = try await browser.post("/api/sessions/\(id)/prompt", ["text": "change the readme", "id": "d1"])
            page.send(["type": "watch", "session": .string(id)])
            try await page.wait("the run's final") { $0["type"] == "item" && $0["item"]?["kind"] == "final" }
            try await web.shell("echo more >> new.txt && echo readme > README.md", in: repo)
            try await page.wait("a reload of the changes") { $0["type"] == "changed" }
            let run = try await browser.get("/api/sessions/\(id)/diff?since=run")
            let runFiles = (run.json["files"]?.arrayValue ?? []).compactMap { $0["path"]?.stringValue }
            #expect(run.status == 200 && Set(runFiles) == ["new.txt", "README.md"], "\(run.text)")

            let gitAfter = try await web.shell("find .git -type f | sort | xargs sha256sum; find .git | sort", in: repo)
            #expect(gitBefore == gitAfter, "the repository's .git was written")
            #expect(try await web.client().get("/api/sessions/\(id)/diff").status == 401)
        }
    }

    /// A diff stages the working tree with the stat data of the repository's own index, so git
    /// reads only the files that changed. The files it must not read are unreadable: reading
    /// one fails the diff. (A clean filter counted the reads until filters were turned off for
    /// the dashboard's git.) Trust in ctime is off, so `chmod` leaves their stat data as indexed.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func aDiffReadsOnlyTheFilesThatChanged() async throws {
        try await WebHome.with { web in
            let repo = web.sessions.project
            // The files are older than the index, so git trusts their stat data (no racy entries).
            try await web.shell(
                "git init -q && git config core.trustctime false && for i in $(seq 1 20); do echo $i > f$i.dat; done && "
                    + "touch -d @1600000000 *.dat && \(Self.git) add -A && \(Self.git) commit -qm first && echo changed > f1.dat && "
                    + "chmod 000 f[0-9][0-9].dat f[2-9].dat", in: repo)
            let (cookie, _) = try await web.signIn()
            let browser = web.client(cookie: cookie)
            let id = try await web.sessions.new(name: "big", cwd: repo)
            let gitBefore = try await web.shell("find .git -type f | sort | xargs sha256sum", in: repo)
            let head = try await browser.get("/api/sessions/\(id)/diff")
            let files = (head.json["files"]?.arrayValue ?? []).compactMap { $0["path"]?.stringValue }
            #expect(head.status == 200 && files == ["f1.dat"], "git read a file that had not changed: \(head.text)")
            #expect(try await web.shell("find .git -type f | sort | xargs sha256sum", in: repo) == gitBefore)
        }
    }

    /// A repository's hooks and filter drivers are commands of its own choosing, and the agent
    /// can write .git/config like any other file: the sessions list's git summary, a run's
    /// snapshot and a diff run none of them, and the diff still shows the change.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func aRepositorysHooksAndFiltersNeverRun() async throws {
        try await WebHome.with { web in
            let repo = web.sessions.project
            let ran = web.sessions.home.scratch + "/ran"
            try await web.shell(
                "git init -q && printf '*.txt filter=evil\\n*.md filter=x=y\\n' > .gitattributes && echo one > app.txt && echo one > app.md && "
                    + "\(Self.git) add -A && \(Self.git) commit -qm first && "
                    + "git config filter.evil.clean 'echo filter >> \(ran); cat' && git config filter.evil.required true && "
                    // `-c filter.x=y.clean=` would set `filter.x`: git splits `-c` at its first `=`.
                    + "git config 'filter.x=y.clean' 'echo x=y >> \(ran); cat' && echo two > app.md && "
                    + "printf '#!/bin/sh\\necho hook >> \(ran)\\n' > .git/hooks/post-index-change && chmod +x .git/hooks/post-index-change && "
                    + "echo two > app.txt", in: repo)
            let (cookie, _) = try await web.signIn()
            let browser = web.client(cookie: cookie)
            let id = try await web.sessions.new(name: "hooks", cwd: repo)
            let page = WebPage(base: web.base, cookie: cookie)
            defer { page.close() }
            try await page.wait("the folder's git summary") {
                $0["type"] == "sessions" && ($0["sessions"]?.arrayValue ?? []).contains { $0["id"]?.stringValue == id && $0["dirty"] == 2 }
            }
            _ = try await browser.post("/api/sessions/\(id)/prompt", ["text": "hello", "id": "h1"])
            let snapshot = web.sessions.home.path + "/state/plugins/web/git/\(id)/run-snapshot"
            try await waitUntil("the run's snapshot", timeout: .seconds(30)) { FileManager.default.fileExists(atPath: snapshot) }
            let head = try await browser.get("/api/sessions/\(id)/diff")
            let files = (head.json["files"]?.arrayValue ?? []).compactMap { $0["path"]?.stringValue }
            #expect(head.status == 200 && files == ["app.md", "app.txt"], "\(head.text)")
            #expect(!FileManager.default.fileExists(atPath: ran), "the repository ran: \((try? String(contentsOfFile: ran, encoding: .utf8)) ?? "")")
        }
    }

    /// A run's snapshot (copies of the files it found changed) is deleted when its session ends,
    /// while a page is open to read the sessions list; another session's stays.
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func anEndedSessionsSnapshotIsDeleted() async throws {
        try await WebHome.with { web in
            let repo = web.sessions.project
            try await web.shell(
                "git init -q && echo one > app.txt && \(Self.git) add -A && \(Self.git) commit -qm first && echo two > app.txt", in: repo)
            let (cookie, _) = try await web.signIn()
            let browser = web.client(cookie: cookie)
            let gone = try await web.sessions.new(name: "gone", cwd: repo)
            let kept = try await web.sessions.new(name: "kept", cwd: repo)
            let folders = web.sessions.home.path + "/state/plugins/web/git/"
            // Prompted with no page open, so the plugin has never read the sessions list: the
            // snapshot must not depend on it (it did, and a page opened a moment before the
            // prompt lost the race on a busy machine).
            for id in [gone, kept] {
                _ = try await browser.post("/api/sessions/\(id)/prompt", ["text": "hello", "id": .string("p-" + id)])
                try await waitUntil("\(id)'s snapshot", timeout: .seconds(30)) {
                    FileManager.default.fileExists(atPath: folders + id + "/run-snapshot")
                }
            }
            let page = WebPage(base: web.base, cookie: cookie)
            defer { page.close() }
            let ended = try await web.sessions.run("end", "gone", timeout: .seconds(30))
            #expect(ended.status == 0, "\(ended)")
            try await waitUntil("the ended session's folder deleted", timeout: .seconds(30)) {
                !FileManager.default.fileExists(atPath: folders + gone)
            }
            #expect(FileManager.default.fileExists(atPath: folders + kept + "/run-snapshot"))
        }
    }

    /// What the copied index must not hide: a file flagged assume-unchanged, one flagged
    /// skip-worktree that is there, and a change git can only see as "racy" (same size, same
    /// mtime, and an index no older than the file: trust in ctime off, as some setups have it).
    @Test(.timeLimit(ScenarioGate.limit(minutes: 4)))
    func theCopiedIndexHidesNoChange() async throws {
        try await WebHome.with { web in
            let repo = web.sessions.project
            try await web.shell(
                "git init -q && git config core.trustctime false && echo aaaa > racy.txt && echo one > flagged.txt && echo two > skipped.txt && "
                    + "touch -d @1600000000 racy.txt && \(Self.git) add -A && \(Self.git) commit -qm first && "
                    + "git update-index --assume-unchanged flagged.txt && git update-index --skip-worktree skipped.txt && "
                    + "echo changed > flagged.txt && echo changed > skipped.txt && "
                    + "echo ffff > racy.txt && touch -d @1600000000 racy.txt .git/index", in: repo)
            let (cookie, _) = try await web.signIn()
            let id = try await web.sessions.new(name: "flags", cwd: repo)
            let head = try await web.client(cookie: cookie).get("/api/sessions/\(id)/diff")
            let files = (head.json["files"]?.arrayValue ?? []).compactMap { $0["path"]?.stringValue }
            #expect(head.status == 200 && Set(files) == ["racy.txt", "flagged.txt", "skipped.txt"], "\(head.text)")
        }
    }
}
