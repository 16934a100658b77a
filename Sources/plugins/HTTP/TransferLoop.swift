import CCurl
import Foundation
import Synchronization

/// Runs every REST call on one curl_multi handle owned by a dedicated thread, so no network wait
/// ever occupies Swift's cooperative pool; callers await a continuation per transfer.
/// Unchecked Sendable: `multi` is used only on the loop thread, except curl_multi_wakeup, which
/// libcurl documents as callable from any thread.
final class TransferLoop: @unchecked Sendable {
    private let multi: UnsafeMutableRawPointer
    private let incoming = Mutex<[HTTPTransfer]>([])

    init() {
        // Thread-safe and reference-counted in this libcurl (THREADSAFE feature).
        curl_global_init(Int(CURL_GLOBAL_ALL))
        multi = curl_multi_init()
        let thread = Thread { [self] in run() }
        thread.name = "discord-curl"
        thread.start()
    }

    func perform(_ request: HTTPRequest) async -> Result<HTTPResponse, TransportError> {
        let transfer = HTTPTransfer(request: request)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.continuation = continuation
                incoming.withLock { $0.append(transfer) }
                curl_multi_wakeup(multi)
            }
        } onCancel: {
            transfer.cancelled.store(true, ordering: .relaxed)
            curl_multi_wakeup(multi)
        }
    }

    private func run() {
        var active: [UnsafeMutableRawPointer: HTTPTransfer] = [:]
        while true {
            for transfer in incoming.withLock({ list in defer { list.removeAll() }; return list }) {
                guard !transfer.cancelled.load(ordering: .relaxed) else {
                    transfer.finish(.failure(.cancelled))
                    continue
                }
                guard let h = transfer.makeHandle() else {
                    transfer.finish(.failure(.failed("out of memory")))
                    continue
                }
                active[h] = transfer
                curl_multi_add_handle(multi, h)
            }
            for (h, transfer) in active where transfer.cancelled.load(ordering: .relaxed) {
                active[h] = nil
                curl_multi_remove_handle(multi, h)
                curl_easy_cleanup(h)
                transfer.finish(.failure(.cancelled))
            }
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let h = message.pointee.easy_handle,
                      let transfer = active.removeValue(forKey: h) else { continue }
                let outcome = transfer.outcome(message.pointee.data.result, handle: h)
                curl_multi_remove_handle(multi, h)
                curl_easy_cleanup(h)
                transfer.finish(outcome)
            }
            // Returns early on socket activity, curl's own timers, or curl_multi_wakeup.
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
    }
}
