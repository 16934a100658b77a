import Foundation
import PiRelayHTTP
import Testing

@testable import AttachmentsPlugin

#if canImport(Glibc)
import Glibc
#endif

@Suite("The curl_multi loop")
struct TransferLoopTests {
    let server = TestServer.shared

    func request(_ url: String, timeout: Duration = .seconds(5)) -> DownloadRequest {
        DownloadRequest(url: url, maxBytes: 1 << 20, timeout: timeout, maxRedirects: 5, proxy: .direct)
    }

    @Test func transfersRunSideBySide() async {
        let started = ContinuousClock.now
        let results = await withTaskGroup(of: Result<Download, DownloadFailure>.self) { group in
            for _ in 0..<5 { group.addTask { await TransferLoop.shared.fetch(request(server.serve(.stall), timeout: .seconds(2))) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0 == .failure(.timedOut(.seconds(2))) })
        // One after another would take ten seconds; the bound leaves a loaded machine room.
        #expect(ContinuousClock.now - started < .seconds(6))
    }

    @Test func cancellingTheTaskEndsTheTransfer() async {
        let started = ContinuousClock.now
        let path = "/\(UUID().uuidString)/stalled"
        let url = server.register(path, .stall)
        let task = Task { await TransferLoop.shared.fetch(request(url, timeout: .seconds(30))) }
        // Cancelled once the server has the request: a transfer under way is what must end.
        while server.requests(containing: path).isEmpty { try? await Task.sleep(for: .milliseconds(10)) }
        task.cancel()
        #expect(await task.value == .failure(.cancelled))
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func aServerThatIsNotThereFailsToConnect() async {
        // A port bound but never listened on refuses connections, and stays ours during the test.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        #expect(bound)
        let result = await TransferLoop.shared.fetch(request("http://127.0.0.1:\(UInt16(bigEndian: addr.sin_port))/x"))
        #expect(result == .failure(.couldNotConnect))
    }

    @Test func theServersContentTypeIsReported() async {
        let result = await TransferLoop.shared.fetch(request(server.serve(.body([1, 2, 3], contentType: "application/pdf"))))
        #expect(result == .success(Download(bytes: [1, 2, 3], contentType: "application/pdf")))
    }
}
