/**
 * The brand's colour kept where it fills (buttons, bars, switches, borders), and text colours picked from it that read at
 * WCAG AA (4.5:1): a darker shade of the brand for text drawn in the brand's colour (links, the selected menu item, the
 * active tab and page), and white or a near-black of the brand's hue for text drawn on the brand's colour.
 */
import { theme, type ThemeConfig } from 'antd';

/** WCAG 2.x's minimum contrast for normal text (1.4.3, AA). */
export const AA = 4.5;

type Rgb = [number, number, number];

function rgbOf(hex: string): Rgb {
  const h = hex.replace('#', '');
  const full = h.length === 3 ? [...h].map((c) => c + c).join('') : h.slice(0, 6);
  return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16)) as Rgb;
}

const hexOf = (rgb: Rgb) => `#${rgb.map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;

function luminance(hex: string): number {
  const [r, g, b] = rgbOf(hex).map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The contrast ratio of two opaque colours (1 to 21). */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** The colour moved toward another by a share (0 keeps it, 1 becomes the other). */
export function mix(color: string, toward: string, share: number): string {
  const a = rgbOf(color);
  const b = rgbOf(toward);
  return hexOf(a.map((v, i) => v + (b[i] - v) * share) as Rgb);
}

/** The lightest shade of the colour (darkened in 5 % steps) that reads on every background given. */
export function readableShade(color: string, backgrounds: string[]): string {
  for (let step = 0; step <= 20; step++) {
    const shade = mix(color, '#000000', step / 20);
    if (backgrounds.every((bg) => contrast(shade, bg) >= AA)) return shade;
  }
  return '#000000';
}

/** Text on a fill of the colour: white where white reads, otherwise the lightest near-black of the colour's hue that does. */
export function textOn(fill: string): string {
  if (contrast('#ffffff', fill) >= AA) return '#ffffff';
  for (let step = 10; step <= 20; step++) {
    const shade = mix(fill, '#000000', step / 20);
    if (contrast(shade, fill) >= AA) return shade;
  }
  return '#000000';
}

/** antd's preset colours, whose tags write the 7th shade on the 1st (green, orange, gold, cyan: about 3:1). */
const PRESETS = ['red', 'volcano', 'orange', 'gold', 'yellow', 'lime', 'green', 'cyan', 'blue', 'geekblue', 'purple', 'magenta'] as const;

/** The 7th shade of each preset colour, darkened where a tag's text would not read on its 1st shade. */
function readablePresets(tokens: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of PRESETS) {
    const text = tokens[`${key}7`] as string;
    const light = tokens[`${key}1`] as string;
    const shade = readableShade(text, [light, '#ffffff']);
    if (shade !== text) out[`${key}7`] = shade;
  }
  return out;
}

/**
 * antd's theme for a brand colour: the brand stays the primary colour; the tokens that draw text in it or on it take a
 * readable colour; secondary text is dark enough for 4.5:1 on white and on the grey of the page.
 */
export function readableTheme(brandColor: string): ThemeConfig {
  const tokens = theme.getDesignToken({ token: { colorPrimary: brandColor } });
  // Text in the brand's colour sits on white, on the page's grey and on the brand's own tint (a selected menu item).
  const onLight = readableShade(brandColor, ['#ffffff', '#f5f5f5', '#fafafa', tokens.colorPrimaryBg, tokens.colorPrimaryBgHover]);
  const onLightHover = readableShade(mix(onLight, '#000000', 0.15), ['#ffffff']);
  const onFill = textOn(brandColor);
  // antd's 45 % black (3.4:1 on white) for descriptions and hints becomes 60 % (5.7:1 on white, 5.2:1 on #f5f5f5).
  const secondary = 'rgba(0, 0, 0, 0.6)';
  return {
    token: {
      colorPrimary: brandColor,
      colorLink: onLight,
      colorLinkHover: onLightHover,
      colorLinkActive: onLightHover,
      colorPrimaryText: onLight,
      colorPrimaryTextHover: onLightHover,
      colorPrimaryTextActive: onLightHover,
      colorTextTertiary: secondary,
      colorTextDescription: secondary,
      // antd's #ff4d4f (3.3:1 on white) writes danger links and error messages: a darker red of the same hue.
      colorError: readableShade(tokens.colorError, ['#ffffff', tokens.colorErrorBg]),
      // Typography's success, warning and danger text (a dashboard's rise and fall): antd writes them in the 6th shade
      // (green 2.3:1 on white), so a darker shade of the same hue that reads on white and on its own tint.
      colorSuccessText: readableShade(tokens.colorSuccessText, ['#ffffff', '#fafafa', tokens.colorSuccessBg]),
      colorWarningText: readableShade(tokens.colorWarningText, ['#ffffff', '#fafafa', tokens.colorWarningBg]),
      colorErrorText: readableShade(tokens.colorErrorText, ['#ffffff', '#fafafa', tokens.colorErrorBg]),
      ...readablePresets(tokens as unknown as Record<string, unknown>),
    },
    components: {
      Button: { primaryColor: onFill },
      Menu: { itemSelectedColor: onLight, subMenuItemSelectedColor: onLight },
      Tabs: { itemSelectedColor: onLight, itemActiveColor: onLightHover, itemHoverColor: onLight },
      Pagination: { itemActiveColor: onLight, itemActiveColorHover: onLightHover },
      Radio: { buttonSolidCheckedColor: onFill },
    },
  };
}
