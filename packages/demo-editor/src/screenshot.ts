// The demo host's look at the page (spec/hop-protocol.md §20.3): the canvas, or the region around one component,
// drawn to a PNG from the page's own markup and styles. The markup goes into an SVG <foreignObject> with the page's
// style sheets, the SVG is drawn onto a <canvas>, and the canvas gives the PNG: no library, nothing leaves the page
// but the image. Images inside the page do not load in an SVG image, so they show as empty boxes.

/** Room kept around a component, so the picture shows what is next to it. */
const MARGIN = 24;
/** The largest picture in pixels (width × height): past it the area is cut at the bottom. */
const MAX_PIXELS = 4096 * 4096;

/**
 * A PNG of `canvas` (the element that shows the page), or of the region around the component `componentUuid`
 * inside it; null when the page does not show that component or the browser cannot draw it.
 */
export async function screenshotOf(canvas: HTMLElement, componentUuid?: string): Promise<Blob | null> {
  const target =
    componentUuid === undefined
      ? canvas
      : canvas.querySelector<HTMLElement>(`[data-uuid="${CSS.escape(componentUuid)}"]`);
  if (!target) return null;
  const whole = canvas.getBoundingClientRect();
  const area = regionAround(whole, target.getBoundingClientRect(), target === canvas ? 0 : MARGIN);
  if (area.width < 1 || area.height < 1) return null;
  const image = await svgImage(canvas, whole, area);
  const picture = document.createElement('canvas');
  picture.width = area.width;
  picture.height = area.height;
  const context = picture.getContext('2d');
  if (!context) return null;
  context.fillStyle = getComputedStyle(canvas).backgroundColor || '#fff';
  context.fillRect(0, 0, area.width, area.height);
  context.drawImage(image, 0, 0);
  return new Promise((resolve) => picture.toBlob(resolve, 'image/png'));
}

/** `inner` grown by `margin` on every side, inside `outer`, in whole pixels relative to `outer`'s corner. */
function regionAround(outer: DOMRect, inner: DOMRect, margin: number) {
  const x = Math.max(0, Math.floor(inner.left - outer.left - margin));
  const y = Math.max(0, Math.floor(inner.top - outer.top - margin));
  const width = Math.min(Math.ceil(outer.width) - x, Math.ceil(inner.width + 2 * margin));
  const height = Math.min(Math.ceil(outer.height) - y, Math.ceil(inner.height + 2 * margin));
  return { x, y, width, height: Math.min(height, Math.floor(MAX_PIXELS / Math.max(1, width))) };
}

/** The canvas's markup and the page's styles as an SVG image, shifted so that `area` starts at its corner. */
async function svgImage(
  canvas: HTMLElement,
  whole: DOMRect,
  area: ReturnType<typeof regionAround>,
): Promise<HTMLImageElement> {
  const clone = canvas.cloneNode(true) as HTMLElement;
  // As wide as it is shown, wherever its own margins would put it.
  clone.style.width = `${whole.width}px`;
  clone.style.margin = '0';
  const markup = new XMLSerializer().serializeToString(clone);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${area.width}" height="${area.height}">` +
    `<style>${escapeXml(pageStyles())}</style>` +
    `<foreignObject x="${-area.x}" y="${-area.y}" width="${Math.ceil(whole.width)}" height="${Math.ceil(whole.height)}">` +
    `${markup}</foreignObject></svg>`;
  const image = new Image();
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
  await image.decode();
  return image;
}

/** The rules of the page's own style sheets (a sheet from another origin cannot be read, and is left out). */
function pageStyles(): string {
  return [...document.styleSheets]
    .flatMap((sheet) => {
      try {
        return [...sheet.cssRules].map((rule) => rule.cssText);
      } catch {
        return [];
      }
    })
    .join('\n');
}

function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}
