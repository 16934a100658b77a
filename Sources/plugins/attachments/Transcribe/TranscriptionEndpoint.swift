import FoundationEssentials
import PiRelayHTTP
import PiRelaySDK

/// An OpenAI-compatible `POST …/audio/transcriptions`: the audio as the multipart part `file`,
/// with `model`, `response_format: json` and, when set, `language`; the key as a bearer token.
/// The answer's `text` is the transcript. The key never appears in a note or a log line. A 429
/// or 5xx, or a failure on the way that may pass, is tried again twice (`performRetrying`).
struct TranscriptionEndpoint: Sendable {
    let url: String
    let model: String
    let language: String?
    let key: String
    let proxy: ProxySetting
    let loop: TransferLoop

    func transcribe(path: String, filename: String, contentType: String, timeout: Duration) async -> Result<String, TranscribeFailure> {
        var parts = [
            HTTPFormPart(name: "model", content: .bytes(Array(model.utf8))),
            HTTPFormPart(name: "response_format", content: .bytes(Array("json".utf8))),
        ]
        if let language { parts.append(HTTPFormPart(name: "language", content: .bytes(Array(language.utf8)))) }
        parts.append(HTTPFormPart(name: "file", content: .file(path: path), filename: filename, contentType: contentType))
        let request = HTTPRequest(
            method: "POST", url: SecretURL(owned: url), headers: ["Authorization: Bearer \(key)", "Accept: application/json"],
            body: .multipart(parts), timeout: timeout, proxy: proxy, maxBytes: 1 << 20)
        // A rate limit or the service's trouble may pass in a second: the voice note is asked
        // about again, within the request's own time (its audio is read once, by then gone).
        switch await loop.performRetrying(request, deadline: .now + timeout, again: { $0 == 429 || $0 >= 500 }) {
        case .failure(let error):
            return .failure(TranscribeFailure("the transcription service could not be reached (\(error))"))
        case .success(let response):
            let answer = try? JSONValue.parse(bytes: response.body)
            guard (200..<300).contains(response.status) else {
                let message = answer?["error"]?["message"]?.stringValue.map { ": \($0.prefix(200))" } ?? ""
                let hint = response.status == 401 ? " (check the key in .env)" : ""
                return .failure(TranscribeFailure("the transcription service answered HTTP \(response.status)\(message)\(hint)"))
            }
            guard let text = answer?["text"]?.stringValue else {
                return .failure(TranscribeFailure("the transcription service's answer had no text"))
            }
            return .success(text)
        }
    }
}
