// Products as stores hold them (issue 48): two options, two images, three variants with prices,
// barcodes and weights, and about 900 bytes of description. Their listing document is about 3.4 kB,
// so a page of 250 is about 850 kB. Shared by bench/import, the listing walk and bench/scale.

const WORDS =
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua'.split(' ');

/** About 900 bytes of HTML description, different for each product. */
function description(i) {
  const words = [];
  for (let k = 0; words.join(' ').length < 840; k++) words.push(WORDS[(i * 7 + k * 3) % WORDS.length]);
  return `<p>${words.join(' ')}.</p><ul><li>Care: hand wash</li></ul>`;
}

export function heavyProduct(i, tag = 'bench') {
  const sizes = ['S', 'M', 'L'];
  return {
    title: `Heavy product ${i}`,
    body_html: description(i),
    vendor: 'Bench Outfitters',
    product_type: 'NORMAL',
    tags: `bench, ${tag}, cotton, summer`,
    images: [
      { src: `https://cdn.example.com/products/${i}/front.png`, alt: `Product ${i}, front` },
      { src: `https://cdn.example.com/products/${i}/back.png`, alt: `Product ${i}, back` },
    ],
    options: [
      { name: 'Size', values: sizes },
      { name: 'Color', values: ['Blue'] },
    ],
    variants: sizes.map((size, k) => ({
      sku: `H-${i}-${size}`,
      barcode: String(4_006_381_000_000 + i * 3 + k),
      price: (19.99 + k * 2).toFixed(2),
      compare_at_price: (29.99 + k * 2).toFixed(2),
      weight: (0.25 + k * 0.05).toFixed(2),
      weight_unit: 'kg',
      option1: size,
      option2: 'Blue',
    })),
  };
}
