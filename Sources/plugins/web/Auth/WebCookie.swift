import Hummingbird

/// The sign-in cookie: HttpOnly, SameSite=Strict, for 30 days; `__Host-` and Secure over HTTPS.
struct WebCookie: Sendable {
    let name: String
    let secure: Bool

    init(tls: Bool) {
        secure = tls
        name = tls ? "__Host-pirelay" : "pirelay"
    }

    func make(_ token: String) -> Cookie {
        Cookie(name: name, value: token, maxAge: Int(SignIns.lifetime), path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }

    var cleared: Cookie { Cookie(name: name, value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true, sameSite: .strict) }
}
