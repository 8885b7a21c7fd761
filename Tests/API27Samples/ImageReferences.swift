import Foundation
import FoundationModels

@Generable
struct PhotoPick {
    @Guide(description: "The photo that fits best")
    var photo: ImageReference
    var caption: String
}

/// Images attached to a prompt by label, and the model pointing back at one of them.
func pickPhoto(from urls: [URL], with model: some LanguageModel) async throws -> URL? {
    guard model.capabilities.contains(.vision) else { return nil }
    let session = LanguageModelSession(model: model)
    let prompt = Prompt {
        "Pick the photo that would make the best postcard."
        for (index, url) in urls.enumerated() {
            Attachment(imageURL: url).label("photo \(index + 1)")
        }
    }
    let response = try await session.respond(to: prompt, generating: PhotoPick.self)
    return response.content.photo.resolve(in: session.transcript)?.url
}
