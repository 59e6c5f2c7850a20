import { limitText, wellFormed } from '../text/limit-text.js';
import { MetadataError } from './errors.js';
import type { Gateways } from './gateways.js';
import { toHttpUrl } from './resolve-uri.js';

/** One attribute as the API shows it: key and value as strings, `format` from OpenSea's `display_type`. */
export interface NftAttribute {
  key: string;
  value: string;
  format?: string;
}

/** The fields of a metadata document the API serves. */
export interface NormalizedMetadata {
  name: string | null;
  description: string | null;
  /** Gateway-resolved image (or animation/`image_data` fallback); `data:` images kept inline. */
  imageUrl: string | null;
  attributes: NftAttribute[];
  /** `external_url` of the document, used by the spam heuristics. */
  externalUrl: string | null;
}

/** Caps keep a hostile document from bloating the store (code points, see `limitText`). */
export const metadataLimits = {
  name: 1_000,
  description: 20_000,
  attributes: 500,
  attributeText: 1_000,
  imageUrl: 200_000,
} as const;

/**
 * Normalises a parsed metadata document (ERC721/ERC1155 metadata JSON schema, OpenSea conventions)
 * while tolerating the shapes seen in the wild: numbers as names, `image_url`/`imageUrl`/`image_data`
 * instead of `image`, `traits` or a `properties` map instead of `attributes`, attributes keyed by
 * `trait_type`/`key`/`name`, numbers and booleans as values (rendered as strings), nested objects
 * (rendered as JSON). A document that is not a JSON object is a `MetadataError`.
 *
 * @example
 * normalizeMetadata({ name: 'A', attributes: [{ trait_type: 'Level', value: 5 }] }, gateways).attributes;
 * // [{ key: 'Level', value: '5' }]
 */
export function normalizeMetadata(doc: unknown, gateways: Gateways): NormalizedMetadata {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new MetadataError('INVALID_METADATA', 'metadata is not a JSON object');
  }
  const record = doc as Record<string, unknown>;
  return {
    name: text(record.name ?? record.title, metadataLimits.name),
    description: text(record.description, metadataLimits.description),
    imageUrl: image(record, gateways),
    attributes: attributes(record),
    externalUrl: text(record.external_url ?? record.externalUrl, metadataLimits.attributeText),
  };
}

function text(value: unknown, limit: number): string | null {
  let out: string | null = null;
  if (typeof value === 'string') out = value;
  else if (typeof value === 'number' || typeof value === 'bigint') out = String(value);
  if (out === null) return null;
  // NUL bytes and lone surrogates are not storable in PostgreSQL text/jsonb, never meaningful here.
  out = wellFormed(out).replaceAll('\u0000', '').trim();
  if (out === '') return null;
  return limitText(out, limit);
}

function image(record: Record<string, unknown>, gateways: Gateways): string | null {
  for (const field of ['image', 'image_url', 'imageUrl', 'imageURI', 'animation_url']) {
    const value = text(record[field], metadataLimits.imageUrl);
    if (value === null) continue;
    const url = toHttpUrl(value, gateways);
    if (url !== undefined) return url;
  }
  const svg = text(record.image_data, metadataLimits.imageUrl);
  if (svg?.startsWith('<svg') || svg?.startsWith('<?xml')) {
    return `data:image/svg+xml;utf8,${encodeURIComponent(svg)}`;
  }
  return null;
}

function attributes(record: Record<string, unknown>): NftAttribute[] {
  const source = record.attributes ?? record.traits ?? record.properties;
  const out: NftAttribute[] = [];
  if (Array.isArray(source)) {
    for (const item of source) {
      const attribute = fromItem(item);
      if (attribute) out.push(attribute);
      if (out.length >= metadataLimits.attributes) break;
    }
  } else if (typeof source === 'object' && source !== null) {
    for (const [key, raw] of Object.entries(source)) {
      // ERC1155 `properties` values are sometimes {name, value, display_value} objects.
      const inner =
        typeof raw === 'object' && raw !== null && !Array.isArray(raw) && 'value' in raw
          ? (raw as Record<string, unknown>).value
          : raw;
      const value = valueText(inner);
      const k = text(key, metadataLimits.attributeText);
      if (k !== null && value !== null) out.push({ key: k, value });
      if (out.length >= metadataLimits.attributes) break;
    }
  }
  return out;
}

function fromItem(item: unknown): NftAttribute | null {
  if (typeof item === 'string') {
    const value = text(item, metadataLimits.attributeText);
    return value === null ? null : { key: 'property', value };
  }
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return null;
  const record = item as Record<string, unknown>;
  const value = valueText(record.value ?? record.trait_value);
  if (value === null) return null;
  const key =
    text(
      record.trait_type ?? record.traitType ?? record.key ?? record.name,
      metadataLimits.attributeText,
    ) ?? 'property';
  const format = text(record.display_type ?? record.format, 100);
  return format === null ? { key, value } : { key, value, format };
}

function valueText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return text(value, metadataLimits.attributeText) ?? '';
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') {
    return String(value);
  }
  try {
    return text(JSON.stringify(value), metadataLimits.attributeText);
  } catch {
    return null;
  }
}

/**
 * Parses a metadata document's text as JSON (a UTF-8 BOM is tolerated). Broken JSON is a
 * `MetadataError` with code `INVALID_JSON` and the parser's message.
 */
export function parseMetadataJson(text: string): unknown {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new MetadataError(
      'INVALID_JSON',
      'metadata is not valid JSON',
      error instanceof Error ? error.message : undefined,
    );
  }
}
