import FoundationEssentials
import PiRelaySDK

/// A post as a page shows it. `html` is in the html dialect (the formatter escaped everything but
/// its own small tag set); `text` is plain and the page sets it as text, never as markup.
enum WebItem {
    static func post(_ params: ChatPostParams, id: String, files: [JSONValue]) -> JSONValue {
        var item: JSONValue = ["id": .string(id), "kind": .string(params.kind.rawValue), "at": .string(ISO8601.string(Date()))]
        if let run = params.runID { item["runId"] = .string(run) }
        switch params.kind {
        case .final:
            item["html"] = .string((params.chunks ?? [params.text ?? ""]).joined(separator: "\n"))
        case .notice:
            item["html"] = .string(params.text ?? (params.chunks ?? []).joined(separator: "\n"))
        default:
            item["text"] = .string(params.text ?? "")
        }
        if !params.actions.isEmpty { item["actions"] = actions(params.actions) }
        if let question = params.question { item["question"] = question.json }
        if !files.isEmpty { item["files"] = .array(files) }
        return item
    }

    static func reply(_ reply: Reply, id: String) -> JSONValue {
        var item: JSONValue = ["id": .string(id), "kind": "reply", "text": .string(reply.text), "at": .string(ISO8601.string(Date()))]
        if !reply.actions.isEmpty { item["actions"] = actions(reply.actions) }
        return item
    }

    static func actions(_ rows: [[Reply.Action]]) -> JSONValue {
        .array(rows.map { row in .array(row.map { ["id": .string($0.id), "label": .string($0.label), "style": .string($0.style)] }) })
    }
}
