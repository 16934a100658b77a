import Testing
@testable import AttachmentsPlugin

@Suite("The curl_multi loop")
struct TransferLoopTests {
    let server = TestServer.shared

    func request(_ url: String, timeout: Duration = .seconds(5)) -> DownloadRequest {
        DownloadRequest(url: url, maxBytes: 1 << 20, timeout: timeout, maxRedirects: 5, proxy: .direct)
    }

    @Test func transfersRunSideBySide() async {
        let started = ContinuousClock.now
        let results = await withTaskGroup(of: Result<Download, DownloadFailure>.self) { group in
            for _ in 0..<5 { group.addTask { await TransferLoop.shared.fetch(request(server.serve(.stall), timeout: .seconds(1))) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0 == .failure(.timedOut(.seconds(1))) })
        // One after another would take five seconds.
        #expect(ContinuousClock.now - started < .seconds(3))
    }

    @Test func cancellingTheTaskEndsTheTransfer() async {
        let started = ContinuousClock.now
        let task = Task { await TransferLoop.shared.fetch(request(server.serve(.stall), timeout: .seconds(30))) }
        try? await Task.sleep(for: .milliseconds(200))
        task.cancel()
        #expect(await task.value == .failure(.cancelled))
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func aServerThatIsNotThereFailsToConnect() async {
        // Port 9 (discard) is closed on test machines; nothing listens there.
        let result = await TransferLoop.shared.fetch(request("http://127.0.0.1:9/x"))
        #expect(result == .failure(.couldNotConnect))
    }

    @Test func theServersContentTypeIsReported() async {
        let result = await TransferLoop.shared.fetch(request(server.serve(.body([1, 2, 3], contentType: "application/pdf"))))
        #expect(result == .success(Download(bytes: [1, 2, 3], contentType: "application/pdf")))
    }
}
