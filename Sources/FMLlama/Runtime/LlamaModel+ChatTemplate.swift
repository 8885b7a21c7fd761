import CLlama
import Foundation

/// One message of a chat, as the model's chat template sees it.
public struct ChatMessage: Sendable, Hashable {
    /// `system`, `user`, `assistant` (or `tool`).
    public var role: String
    /// The message text.
    public var content: String

    /// Creates a message.
    public init(role: String, content: String) {
        self.role = role
        self.content = content
    }
}

/// Prompt rendering with the model's own chat template.
extension LlamaModel {
    /// Renders `messages` with the chat template from the GGUF metadata.
    ///
    /// llama.cpp recognises the common template families (ChatML, Gemma, Llama 3 …) from the Jinja text.
    /// A model without a template, or with one llama.cpp does not know, gets ChatML, the format most
    /// small instruction-tuned models use.
    ///
    /// The contents are plain text (``plainText(_:)``): a spelled-out control token in a message stays text. A NUL
    /// character becomes U+FFFD: llama.cpp reads the template's messages as C strings, which would end at it.
    ///
    /// - Parameter addAssistantPrefix: Ends with the tokens that open the assistant's reply.
    public func renderChat(_ messages: [ChatMessage], addAssistantPrefix: Bool) -> String {
        let messages = messages.map { message in
            let content = message.content.unicodeScalars.contains("\u{0}")
                ? String(String.UnicodeScalarView(message.content.unicodeScalars.map { $0 == "\u{0}" ? "\u{FFFD}" : $0 }))
                : message.content
            return ChatMessage(role: message.role, content: plainText(content))
        }
        if let rendered = applyTemplate(chatTemplate, messages, addAssistantPrefix) { return rendered }
        return Self.renderChatML(messages, addAssistantPrefix: addAssistantPrefix)
    }

    private func applyTemplate(_ template: String?, _ messages: [ChatMessage], _ addAssistant: Bool) -> String? {
        guard let template else { return nil }
        // llama.cpp reads plain C strings; keep copies alive for the duration of the call.
        let roles = messages.map { strdup($0.role) }
        let contents = messages.map { strdup($0.content) }
        defer {
            roles.forEach { free($0) }
            contents.forEach { free($0) }
        }
        let chat = zip(roles, contents).map { llama_chat_message(role: $0, content: $1) }
        let estimate = messages.reduce(256) { $0 + 2 * ($1.content.utf8.count + $1.role.utf8.count + 16) }
        var buffer = [CChar](repeating: 0, count: estimate)
        var length = llama_chat_apply_template(template, chat, chat.count, addAssistant, &buffer, Int32(buffer.count))
        if length > buffer.count {
            buffer = [CChar](repeating: 0, count: Int(length) + 1)
            length = llama_chat_apply_template(template, chat, chat.count, addAssistant, &buffer, Int32(buffer.count))
        }
        guard length >= 0 else { return nil }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// ChatML: `<|im_start|>role\ncontent<|im_end|>\n` per message.
    static func renderChatML(_ messages: [ChatMessage], addAssistantPrefix: Bool) -> String {
        var text = ""
        for message in messages {
            text += "<|im_start|>\(message.role)\n\(message.content)<|im_end|>\n"
        }
        if addAssistantPrefix { text += "<|im_start|>assistant\n" }
        return text
    }
}
