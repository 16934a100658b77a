import CCurl
import FoundationEssentials
import PiRelaySDK
import Synchronization

/// Runs every HTTP exchange of a plugin on one curl_multi handle owned by a dedicated thread, so no network wait
/// ever occupies Swift's cooperative pool; callers await a continuation per transfer.
/// Unchecked Sendable: `multi` is used only on the loop thread, except curl_multi_wakeup, which
/// libcurl documents as callable from any thread.
package final class TransferLoop: @unchecked Sendable {
    /// One loop (and thread) for the whole process.
    package static let shared = TransferLoop()

    private let multi: UnsafeMutableRawPointer
    private let incoming = Mutex<[HTTPTransfer]>([])

    package init() {
        // Thread-safe and reference-counted since curl 7.84 (this build reports THREADSAFE), so
        // calling it after the SDK started its reader threads is fine.
        curl_global_init(Int(CURL_GLOBAL_ALL))
        multi = curl_multi_init()
        DedicatedThread.start("curl-multi") { [self] in run() }
    }

    /// Runs `request`; cancelling the calling task ends the transfer with `.cancelled`.
    package func perform(_ request: HTTPRequest) async -> Result<HTTPResponse, TransportError> {
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
            for transfer in incoming.withLock({ list in
                defer { list.removeAll() }; return list
            }) {
                guard !transfer.cancelled.load(ordering: .relaxed) else {
                    transfer.finish(.failure(.cancelled))
                    continue
                }
                guard let handle = transfer.makeHandle() else {
                    transfer.finish(.failure(.failed("out of memory")))
                    continue
                }
                active[handle] = transfer
                curl_multi_add_handle(multi, handle)
            }
            for (handle, transfer) in active where transfer.cancelled.load(ordering: .relaxed) {
                active[handle] = nil
                curl_multi_remove_handle(multi, handle)
                curl_easy_cleanup(handle)
                transfer.finish(.failure(.cancelled))
            }
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                    let transfer = active.removeValue(forKey: handle)
                else { continue }
                let outcome = transfer.outcome(message.pointee.data.result, handle: handle)
                curl_multi_remove_handle(multi, handle)
                curl_easy_cleanup(handle)
                transfer.finish(outcome)
            }
            // Returns early on socket activity, curl's own timers, or curl_multi_wakeup.
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
    }
}
