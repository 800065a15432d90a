import { graphemeLength } from "../../text/graphemes";

/**
 * LinkedIn post text. The Posts API's `commentary` is "little text" format, where `\ | { } @ [ ] ( ) < > # * _ ~`
 * are markup (mentions, hashtags, templates): written as plain text they must be escaped with a backslash, or
 * LinkedIn refuses the post or cuts the text at the first one. LinkedIn has no threads: Herald joins a
 * rendition's segments into one post, a blank line between them, when the whole fits 3,000 characters (a
 * longer rendition is refused when the publication is created). Pure.
 */

export const LINKEDIN_TEXT_LIMIT = 3000;

const RESERVED = /[\\|{}@[\]()<>#*_~]/g;

export const escapeLittleText = (text: string) => text.replace(RESERVED, (ch) => `\\${ch}`);

/** What little text shows for an escaped commentary (the inverse of escapeLittleText). */
export const unescapeLittleText = (text: string) => text.replace(/\\([\\|{}@[\]()<>#*_~])/g, "$1");

export const linkedinLength = graphemeLength;
