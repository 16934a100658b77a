import CCurl
import FoundationEssentials
import PiRelaySDK
import Synchronization

/// One HTTP exchange in flight on the `TransferLoop`. After submission everything except
/// `cancelled` is touched only by the loop thread, which makes the unchecked Sendable sound.
final class HTTPTransfer: @unchecked Sendable {
    let request: HTTPRequest
    let cancelled = Atomic<Bool>(false)
    var continuation: CheckedContinuation<Result<HTTPResponse, TransportError>, Never>?

    private var responseBody: [UInt8] = []
    private var responseHeaders: [String: String] = [:]
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var mime: OpaquePointer?
    private var requestBody: UnsafeMutableRawBufferPointer?
    private var passedCap = false

    init(request: HTTPRequest) {
        self.request = request
    }

    /// Configures a new easy handle; nil only when curl cannot allocate one.
    func makeHandle() -> UnsafeMutableRawPointer? {
        guard let handle = curl_easy_init() else { return nil }
        ccurl_setopt_str(handle, CURLOPT_URL, request.url.unredacted)
        // Signals would land on arbitrary threads; curl's own timers do the timeouts instead.
        ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        // Only web links: a file:// or ftp:// URL, or a redirect to one, must never reach the disk
        // or another service.
        ccurl_setopt_str(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        if request.maxRedirects > 0 {
            ccurl_setopt_str(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
            ccurl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 1)
            ccurl_setopt_long(handle, CURLOPT_MAXREDIRS, request.maxRedirects)
        }
        let timeoutMs = max(1, request.timeout.inMilliseconds)
        ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutMs)
        ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, min(timeoutMs, max(1, request.connectTimeout.inMilliseconds)))
        if request.skipsErrorBody { ccurl_setopt_long(handle, CURLOPT_FAILONERROR, 1) }
        if let trusted = request.trustedCertificates { ccurl_setopt_str(handle, CURLOPT_CAINFO, trusted) }
        if let maxBytes = request.maxBytes {
            // Refuses early when an honest Content-Length is too big; the write callback enforces
            // the cap on the bytes that actually arrive, whatever the headers claimed.
            ccurl_setopt_off(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maxBytes))
        }
        ccurl_setopt_str(handle, CURLOPT_PROXY, request.proxy.url ?? "")
        if request.tunnelsThroughProxy, let proxy = request.proxy.url, !proxy.lowercased().hasPrefix("socks") {
            ccurl_setopt_long(handle, CURLOPT_HTTPPROXYTUNNEL, 1)
        }
        if let bypass = request.proxy.bypass { ccurl_setopt_str(handle, CURLOPT_NOPROXY, bypass) }
        for line in request.headers { headerList = curl_slist_append(headerList, line) }
        // No "Expect: 100-continue" round trip before uploads.
        headerList = curl_slist_append(headerList, "Expect:")
        switch request.body {
        case .none:
            if request.method == "POST" {
                ccurl_setopt_long(handle, CURLOPT_POST, 1)
                ccurl_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, 0)
                ccurl_setopt_str(handle, CURLOPT_POSTFIELDS, "")
            } else if request.method != "GET" {
                ccurl_setopt_str(handle, CURLOPT_CUSTOMREQUEST, request.method)
            }
        case .json(let bytes), .bytes(let bytes, _):
            if case .bytes(_, let contentType) = request.body {
                headerList = curl_slist_append(headerList, "Content-Type: " + contentType)
            } else {
                headerList = curl_slist_append(headerList, "Content-Type: application/json")
            }
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
            buffer.copyBytes(from: bytes)
            requestBody = buffer
            ccurl_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count))
            ccurl_setopt_ptr(handle, CURLOPT_POSTFIELDS, buffer.baseAddress)
            if request.method != "POST" { ccurl_setopt_str(handle, CURLOPT_CUSTOMREQUEST, request.method) }
        case .multipart(let parts):
            let form = curl_mime_init(handle)
            for part in parts {
                let added = curl_mime_addpart(form)
                curl_mime_name(added, part.name)
                switch part.content {
                case .bytes(let bytes):
                    bytes.withUnsafeBufferPointer { buf in
                        buf.withMemoryRebound(to: CChar.self) { chars in _ = curl_mime_data(added, chars.baseAddress, chars.count) }
                    }
                case .file(let path):
                    curl_mime_filedata(added, path)
                }
                if let filename = part.filename { curl_mime_filename(added, filename) }
                if let type = part.contentType { curl_mime_type(added, type) }
            }
            mime = form
            ccurl_setopt_ptr(handle, CURLOPT_MIMEPOST, UnsafeMutableRawPointer(form))
            if request.method != "POST" { ccurl_setopt_str(handle, CURLOPT_CUSTOMREQUEST, request.method) }
        }
        ccurl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList)
        let context = Unmanaged.passUnretained(self).toOpaque()
        ccurl_setopt_write_cb(handle, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            guard let data, let context else { return 0 }
            let transfer = Unmanaged<HTTPTransfer>.fromOpaque(context).takeUnretainedValue()
            return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
        }
        ccurl_setopt_ptr(handle, CURLOPT_WRITEDATA, context)
        ccurl_setopt_write_cb(handle, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            guard let data, let context else { return 0 }
            let transfer = Unmanaged<HTTPTransfer>.fromOpaque(context).takeUnretainedValue()
            transfer.receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count))
            return size * count
        }
        ccurl_setopt_ptr(handle, CURLOPT_HEADERDATA, context)
        return handle
    }

    /// Returning less than the count given makes curl abort the transfer right away.
    private func receiveBody(_ chunk: UnsafeRawBufferPointer) -> Int {
        if let maxBytes = request.maxBytes, responseBody.count + chunk.count > maxBytes {
            passedCap = true
            return 0
        }
        responseBody.append(contentsOf: chunk)
        return chunk.count
    }

    private func receiveHeader(_ raw: UnsafeRawBufferPointer) {
        let line = String(decoding: raw, as: UTF8.self).trimmed()
        if line.hasPrefix("HTTP/") {
            // A new response (after a 100 Continue or a proxy CONNECT): forget the previous headers.
            responseHeaders = [:]
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingInlineSpace()
        responseHeaders[name] = value
    }

    func outcome(_ code: CURLcode, handle: UnsafeMutableRawPointer) -> Result<HTTPResponse, TransportError> {
        var status = 0
        ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        if passedCap || code == CURLE_FILESIZE_EXCEEDED { return .failure(.tooLarge) }
        switch code {
        case CURLE_OK:
            return .success(HTTPResponse(status: status, headers: responseHeaders, body: responseBody))
        case CURLE_HTTP_RETURNED_ERROR:
            return .success(HTTPResponse(status: status, headers: responseHeaders, body: []))
        case CURLE_OPERATION_TIMEDOUT: return .failure(.timedOut)
        case CURLE_TOO_MANY_REDIRECTS: return .failure(.tooManyRedirects)
        case CURLE_UNSUPPORTED_PROTOCOL: return .failure(.disallowedScheme)
        case CURLE_URL_MALFORMAT: return .failure(.malformedURL)
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_SEND_ERROR: return .failure(.connectionDropped)
        case CURLE_COULDNT_RESOLVE_HOST: return .failure(.unresolvedHost)
        case CURLE_COULDNT_CONNECT: return .failure(.couldNotConnect)
        case CURLE_COULDNT_RESOLVE_PROXY, CURLE_PROXY: return .failure(.proxyFailed)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE:
            return .failure(.secureConnectionFailed)
        default:
            // A fixed phrase per code: never a URL, header or credential.
            return .failure(.failed(String(cString: curl_easy_strerror(code))))
        }
    }

    func finish(_ result: Result<HTTPResponse, TransportError>) {
        continuation?.resume(returning: result)
        continuation = nil
        responseBody = []
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
        if let mime { curl_mime_free(mime) }
        mime = nil
        requestBody?.deallocate()
        requestBody = nil
    }
}
