/// The dashboard's page, script and style, embedded: no CDN, no npm, no inline script (the CSP
/// forbids it), and nothing fetched from anywhere but this server.
enum WebAssets {
    /// Every page's head: the style sheet, and the script where the page needs it.
    static func head(title: String, script: Bool) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(title)</title>
        <link rel="stylesheet" href="/assets/style.css">\(script ? "\n<script type=\"module\" src=\"/assets/app.js\"></script>" : "")
        </head>

        """
    }

    static let shell =
        head(title: "pi-relayd", script: true) + #"""
            <body>
            <header>
              <a href="/" class="home">pi-relayd</a>
              <nav><a href="/">Sessions</a> <a href="/approvals">Approvals</a> <a href="/status">Status</a></nav>
              <span id="link" class="link">connecting…</span>
              <button id="notify" type="button" hidden>Notify me</button>
              <form method="post" action="/signout"><button type="submit">Sign out</button></form>
            </header>
            <main id="main"></main>
            </body>
            </html>
            """#

    static let signIn =
        head(title: "pi-relayd: sign in", script: false) + #"""
            <body>
            <main id="signin">
            <h1>pi-relayd</h1>
            <p>This browser is not signed in. On the machine that runs pi-relayd, run</p>
            <pre>pi-relayd pair web</pre>
            <p>and open the link it prints here. The link works once, for five minutes.</p>
            </main>
            </body>
            </html>
            """#
}
