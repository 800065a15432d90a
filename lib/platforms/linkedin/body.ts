import { escapeLittleText } from "./text";

/**
 * The Posts API body of a member's post (POST /rest/posts). Pure. One image goes as `content.media`
 * with its `altText`; two to twenty as `content.multiImage.images`.
 */

export interface LinkedInImage {
  urn: string;
  altText: string | null;
}

export function postBody(author: string, text: string, images: LinkedInImage[]) {
  const media = (i: LinkedInImage) => ({ id: i.urn, ...(i.altText ? { altText: i.altText } : {}) });
  return {
    author,
    commentary: escapeLittleText(text),
    visibility: "PUBLIC",
    distribution: { feedDistribution: "MAIN_FEED", targetEntities: [], thirdPartyDistributionChannels: [] },
    lifecycleState: "PUBLISHED",
    isReshareDisabledByAuthor: false,
    ...(images.length === 1 ? { content: { media: media(images[0]) } } : {}),
    ...(images.length > 1 ? { content: { multiImage: { images: images.map(media) } } } : {}),
  };
}

export const personUrn = (memberId: string) => (memberId.startsWith("urn:li:") ? memberId : `urn:li:person:${memberId}`);
