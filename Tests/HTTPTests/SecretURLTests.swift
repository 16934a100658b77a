import PiRelayHTTP
import Testing

/// A URL with a token in it (Telegram's `/bot<token>/`) shows the token to curl only.
@Suite struct SecretURLTests {
    let token = "123456:AAE-secret_Token"

    @Test func everyPrintedFormHidesTheSecret() {
        let url = SecretURL("https://api.telegram.org/bot\(token)/sendMessage", secret: token)
        #expect(url.unredacted.contains(token))
        #expect(url.description == "https://api.telegram.org/bot***/sendMessage")
        #expect("\(url)" == url.description)
        #expect(String(reflecting: url) == url.description)
        var dumped = ""
        dump(url, to: &dumped)
        #expect(!dumped.contains(token), "\(dumped)")
        let request = HTTPRequest(url: url, timeout: .seconds(5), proxy: .direct)
        var dumpedRequest = ""
        dump(request, to: &dumpedRequest)
        #expect(!dumpedRequest.contains(token), "\(dumpedRequest)")
    }

    /// A URL the owner wrote (the transcription endpoint, logged at start): a user and password
    /// in it, and its query (`?key=…`), are credentials the log must not hold.
    @Test func anOwnedURLHidesItsCredentialsAndQuery() {
        let url = SecretURL(owned: "https://relay:s3cretpw@whisper.lan:8443/v1?key=k-42&x=1#top")
        #expect(url.description == "https://***@whisper.lan:8443/v1?***#top")
        #expect(url.unredacted.contains("s3cretpw") && url.unredacted.contains("k-42"))
        #expect(SecretURL(owned: "https://whisper.lan/v1/audio/transcriptions").description == "https://whisper.lan/v1/audio/transcriptions")
        #expect(SecretURL(owned: "http://me@whisper.lan/v1").description == "http://***@whisper.lan/v1")
    }

    @Test func aURLWithoutSecretPrintsAsIs() {
        let url = SecretURL("https://discord.com/api/v10/users/@me")
        #expect(url.description == url.unredacted)
        #expect(url.scheme == "https")
    }

    /// The loop refuses what is not a web link before any byte goes out.
    @Test func aTransferFailureNamesNoURL() async {
        let url = SecretURL("ftp://files.example/bot\(token)/x", secret: token)
        let result = await TransferLoop.shared.perform(HTTPRequest(url: url, timeout: .seconds(5), proxy: .direct))
        guard case .failure(let error) = result else {
            Issue.record("an ftp URL was fetched")
            return
        }
        #expect(!error.description.contains(token))
        #expect(!error.description.contains("files.example"))
    }
}
