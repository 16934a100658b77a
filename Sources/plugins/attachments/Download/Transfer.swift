import CCurl
import Synchronization

/// One download in flight. After `TransferLoop.submit`, everything except `cancelled` is touched
/// only by the loop's thread, which is why the unchecked Sendable is sound.
final class Transfer: @unchecked Sendable {
    let request: DownloadRequest
    let cancelled = Atomic<Bool>(false)
    var continuation: CheckedContinuation<Result<Download, DownloadFailure>, Never>?
    private(set) var body: [UInt8] = []
    private var passedCap = false

    init(request: DownloadRequest) {
        self.request = request
    }

    /// Configures a new easy handle; nil only when curl cannot allocate one.
    func makeHandle() -> UnsafeMutableRawPointer? {
        guard let h = curl_easy_init() else { return nil }
        ccurl_setopt_str(h, CURLOPT_URL, request.url)
        // Signals would hit arbitrary threads of this process; timeouts are curl's own timers instead.
        ccurl_setopt_long(h, CURLOPT_NOSIGNAL, 1)
        ccurl_setopt_str(h, CURLOPT_PROTOCOLS_STR, "http,https")
        ccurl_setopt_str(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        ccurl_setopt_long(h, CURLOPT_FOLLOWLOCATION, 1)
        ccurl_setopt_long(h, CURLOPT_MAXREDIRS, request.maxRedirects)
        let ms = Self.milliseconds(request.timeout)
        ccurl_setopt_long(h, CURLOPT_TIMEOUT_MS, ms)
        ccurl_setopt_long(h, CURLOPT_CONNECTTIMEOUT_MS, min(ms, 10_000))
        ccurl_setopt_long(h, CURLOPT_FAILONERROR, 1)
        // Refuses early when an honest Content-Length is too big; the write callback below enforces
        // the cap on the bytes that actually arrive, whatever the headers claimed.
        ccurl_setopt_off(h, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(request.maxBytes))
        ccurl_setopt_str(h, CURLOPT_USERAGENT, "pi-relay-attachments/0.1")
        ccurl_setopt_str(h, CURLOPT_PROXY, request.proxy.url ?? "")
        if let bypass = request.proxy.bypass { ccurl_setopt_str(h, CURLOPT_NOPROXY, bypass) }
        ccurl_setopt_write_cb(h, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            guard let data, let context else { return 0 }
            return Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue().receive(data, size * count)
        }
        ccurl_setopt_ptr(h, CURLOPT_WRITEDATA, Unmanaged.passUnretained(self).toOpaque())
        return h
    }

    /// Returning less than `count` makes curl abort the transfer right away.
    private func receive(_ data: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        guard body.count + count <= request.maxBytes else {
            passedCap = true
            return 0
        }
        body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: count))
        return count
    }

    func outcome(_ code: CURLcode, handle h: UnsafeMutableRawPointer) -> Result<Download, DownloadFailure> {
        var status = 0
        ccurl_getinfo_long(h, CURLINFO_RESPONSE_CODE, &status)
        if passedCap || code == CURLE_FILESIZE_EXCEEDED { return .failure(.tooLarge(limit: request.maxBytes)) }
        switch code {
        case CURLE_OK:
            guard (200..<300).contains(status) else { return .failure(.httpStatus(status)) }
            var type: UnsafeMutablePointer<CChar>?
            ccurl_getinfo_str(h, CURLINFO_CONTENT_TYPE, &type)
            return .success(Download(bytes: body, contentType: type.map { String(cString: $0) }))
        case CURLE_HTTP_RETURNED_ERROR: return .failure(.httpStatus(status))
        case CURLE_OPERATION_TIMEDOUT: return .failure(.timedOut(request.timeout))
        case CURLE_TOO_MANY_REDIRECTS: return .failure(.tooManyRedirects(limit: request.maxRedirects))
        case CURLE_UNSUPPORTED_PROTOCOL: return .failure(.redirectedToDisallowedScheme)
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_SEND_ERROR:
            return .failure(.connectionDropped)
        case CURLE_COULDNT_RESOLVE_HOST: return .failure(.unresolvedHost)
        case CURLE_COULDNT_CONNECT: return .failure(.couldNotConnect)
        case CURLE_COULDNT_RESOLVE_PROXY, CURLE_PROXY: return .failure(.proxyFailed)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE:
            return .failure(.secureConnectionFailed)
        case CURLE_URL_MALFORMAT: return .failure(.disallowedScheme(""))
        default:
            // curl_easy_strerror is a fixed phrase per code: never a URL or proxy credentials.
            return .failure(.other(String(cString: curl_easy_strerror(code))))
        }
    }

    func finish(_ result: Result<Download, DownloadFailure>) {
        continuation?.resume(returning: result)
        continuation = nil
        body = []
    }

    private static func milliseconds(_ d: Duration) -> Int {
        let c = d.components
        return max(1, Int(c.seconds) * 1000 + Int(c.attoseconds / 1_000_000_000_000_000))
    }
}
