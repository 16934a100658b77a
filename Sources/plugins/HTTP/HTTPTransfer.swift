import Foundation
import CCurl
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

    init(request: HTTPRequest) {
        self.request = request
    }

    /// Configures a new easy handle; nil only when curl cannot allocate one.
    func makeHandle() -> UnsafeMutableRawPointer? {
        guard let h = curl_easy_init() else { return nil }
        ccurl_setopt_str(h, CURLOPT_URL, request.url)
        // Signals would land on arbitrary threads; curl's own timers do the timeouts instead.
        ccurl_setopt_long(h, CURLOPT_NOSIGNAL, 1)
        ccurl_setopt_str(h, CURLOPT_PROTOCOLS_STR, "http,https")
        ccurl_setopt_long(h, CURLOPT_TIMEOUT_MS, Self.milliseconds(request.timeout))
        ccurl_setopt_long(h, CURLOPT_CONNECTTIMEOUT_MS, 15_000)
        ccurl_setopt_str(h, CURLOPT_PROXY, request.proxy.url ?? "")
        if let proxy = request.proxy.url, !proxy.lowercased().hasPrefix("socks") {
            // CONNECT for every request, as for HTTPS, so the proxy never sees a request line.
            ccurl_setopt_long(h, CURLOPT_HTTPPROXYTUNNEL, 1)
        }
        if let bypass = request.proxy.bypass { ccurl_setopt_str(h, CURLOPT_NOPROXY, bypass) }
        for line in request.headers { headerList = curl_slist_append(headerList, line) }
        // No "Expect: 100-continue" round trip before uploads.
        headerList = curl_slist_append(headerList, "Expect:")
        switch request.body {
        case .none:
            if request.method == "POST" {
                ccurl_setopt_long(h, CURLOPT_POST, 1)
                ccurl_setopt_off(h, CURLOPT_POSTFIELDSIZE_LARGE, 0)
                ccurl_setopt_str(h, CURLOPT_POSTFIELDS, "")
            } else if request.method != "GET" {
                ccurl_setopt_str(h, CURLOPT_CUSTOMREQUEST, request.method)
            }
        case .json(let bytes):
            headerList = curl_slist_append(headerList, "Content-Type: application/json")
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
            buffer.copyBytes(from: bytes)
            requestBody = buffer
            ccurl_setopt_off(h, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count))
            ccurl_setopt_ptr(h, CURLOPT_POSTFIELDS, buffer.baseAddress)
            if request.method != "POST" { ccurl_setopt_str(h, CURLOPT_CUSTOMREQUEST, request.method) }
        case .multipart(let payload, let files):
            let form = curl_mime_init(h)
            let json = curl_mime_addpart(form)
            curl_mime_name(json, "payload_json")
            payload.withUnsafeBufferPointer { buf in
                buf.withMemoryRebound(to: CChar.self) { chars in _ = curl_mime_data(json, chars.baseAddress, chars.count) }
            }
            curl_mime_type(json, "application/json")
            for (n, file) in files.enumerated() {
                let part = curl_mime_addpart(form)
                curl_mime_name(part, "files[\(n)]")
                curl_mime_filedata(part, file.path)
                curl_mime_filename(part, file.filename)
                curl_mime_type(part, file.contentType)
            }
            mime = form
            ccurl_setopt_ptr(h, CURLOPT_MIMEPOST, UnsafeMutableRawPointer(form))
            if request.method != "POST" { ccurl_setopt_str(h, CURLOPT_CUSTOMREQUEST, request.method) }
        }
        ccurl_setopt_slist(h, CURLOPT_HTTPHEADER, headerList)
        let context = Unmanaged.passUnretained(self).toOpaque()
        ccurl_setopt_write_cb(h, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            guard let data, let context else { return 0 }
            let transfer = Unmanaged<HTTPTransfer>.fromOpaque(context).takeUnretainedValue()
            transfer.responseBody.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size * count))
            return size * count
        }
        ccurl_setopt_ptr(h, CURLOPT_WRITEDATA, context)
        ccurl_setopt_write_cb(h, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            guard let data, let context else { return 0 }
            let transfer = Unmanaged<HTTPTransfer>.fromOpaque(context).takeUnretainedValue()
            transfer.receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count))
            return size * count
        }
        ccurl_setopt_ptr(h, CURLOPT_HEADERDATA, context)
        return h
    }

    private func receiveHeader(_ raw: UnsafeRawBufferPointer) {
        let line = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("HTTP/") {
            // A new response (after a 100 Continue or a proxy CONNECT): forget the previous headers.
            responseHeaders = [:]
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        responseHeaders[name] = value
    }

    func outcome(_ code: CURLcode, handle h: UnsafeMutableRawPointer) -> Result<HTTPResponse, TransportError> {
        switch code {
        case CURLE_OK:
            var status = 0
            ccurl_getinfo_long(h, CURLINFO_RESPONSE_CODE, &status)
            return .success(HTTPResponse(status: status, headers: responseHeaders, body: responseBody))
        case CURLE_OPERATION_TIMEDOUT:
            return .failure(.timedOut)
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

    private static func milliseconds(_ d: Duration) -> Int {
        let c = d.components
        return max(1, Int(c.seconds) * 1000 + Int(c.attoseconds / 1_000_000_000_000_000))
    }
}
