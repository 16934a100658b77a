import FoundationEssentials
import MessengerKit
import PiRelaySDK

/// Turns rows of buttons into Discord components within the legacy layout limits: at most 5
/// buttons per action row and 5 rows, custom_id 1–100 characters and unique, label ≤ 80. Past 25
/// buttons the whole set becomes select menus (25 options each, one per row).
enum ComponentLayout {
    static let maxRows = 5
    static let buttonsPerRow = 5
    static let optionsPerMenu = 25
    static let maxCustomID = 100
    static let maxLabel = 80
    static let maxOptionLabel = 100

    /// `menuPrefix` names the select menus ("<prefix><n>"): a selection comes back with that
    /// custom_id and the chosen button's custom_id as its value.
    static func components(_ rows: [[ButtonSpec]], menuPrefix: String, maxRows: Int = maxRows) -> [JSONValue] {
        var seen: Set<String> = []
        let usable = rows.map { row in
            row.filter { button in
                // An id that does not fit cannot be sent back verbatim, so the button is left out.
                guard !button.customID.isEmpty, button.customID.count <= maxCustomID, !seen.contains(button.customID) else { return false }
                seen.insert(button.customID)
                return true
            }
        }.filter { !$0.isEmpty }
        let split = usable.flatMap { row in
            stride(from: 0, to: row.count, by: buttonsPerRow).map { Array(row[$0..<min($0 + buttonsPerRow, row.count)]) }
        }
        if split.count <= maxRows {
            return split.map { row in ["type": 1, "components": .array(row.map(button))] }
        }
        let all = split.flatMap { $0 }
        let menus = stride(from: 0, to: all.count, by: optionsPerMenu).prefix(maxRows).enumerated().map { n, start in
            Array(all[start..<min(start + optionsPerMenu, all.count)])
        }
        return menus.enumerated().map { n, options in
            let first = n * optionsPerMenu + 1
            let menu: JSONValue = [
                "type": 3, "custom_id": .string("\(menuPrefix)\(n)"),
                "placeholder": .string(menus.count == 1 ? "Choose…" : "Choose (\(first)–\(first + options.count - 1))…"),
                "min_values": 1, "max_values": 1,
                "options": .array(options.map { ["label": .string(label($0.label, max: maxOptionLabel)), "value": .string($0.customID)] }),
            ]
            return ["type": 1, "components": [menu]]
        }
    }

    /// How many buttons the layout keeps: the rest did not fit even as menus.
    static func capacity(maxRows: Int = maxRows) -> Int { maxRows * optionsPerMenu }

    static func button(_ spec: ButtonSpec) -> JSONValue {
        ["type": 2, "style": JSONValue(spec.style), "label": .string(label(spec.label, max: maxLabel)), "custom_id": .string(spec.customID)]
    }

    static func label(_ text: String, max: Int) -> String {
        TextFit.label(text, max: max)
    }
}
