-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)
--
-- Host: 10.20.0.14    Database: cvm_collections
-- ------------------------------------------------------
-- Server version	8.0.36-0ubuntu0.22.04.1
-- Carrow Vale Museum & Art Gallery -- nightly export for the documentation team
-- Dump completed on 2026-04-02  01:15:07 (see bottom)

/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET NAMES utf8mb4 */;
/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;

--
-- Table structure for table `objects`
--

DROP TABLE IF EXISTS `objects`;
CREATE TABLE `objects` (
  `accession_no` varchar(20) NOT NULL,
  `title` varchar(200) NOT NULL,
  `maker` varchar(120) DEFAULT NULL,
  `date_made` varchar(40) DEFAULT NULL,
  `material` varchar(120) DEFAULT NULL,
  `location` varchar(40) NOT NULL COMMENT 'G1 Archaeology, G2 Natural History, G3 Costume & Textiles, G4 Fine Art, STORE-A, STORE-B',
  `acquired_year` smallint DEFAULT NULL,
  `acq_method` enum('purchase','gift','bequest','transfer','field collection') DEFAULT NULL,
  `insurance_gbp` int DEFAULT NULL COMMENT 'NULL = not yet valued',
  PRIMARY KEY (`accession_no`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

--
-- Dumping data for table `objects`
--

LOCK TABLES `objects` WRITE;
INSERT INTO `objects` VALUES
('CVM.1908.003','Flint hand axe','unknown','c. 250,000 BC','flint','G1',1908,'field collection',1200),
('CVM.1923.014','Cinerary urn with chevron decoration','unknown','Bronze Age','fired clay','G1',1923,'gift',3500),
('CVM.1951.118','Oil lamp with theatre mask','unknown','1st century AD','copper alloy (bronze)','G1',1951,'purchase',8200),
('CVM.1951.119','Oil lamp, plain','unknown','2nd century AD','ceramic, red slip','G1',1951,'purchase',650),
('CVM.1962.040','Coin hoard (37 silver denarii)','Roman mints','AD 69-180','silver','STORE-A',1962,'transfer',22000),
('CVM.1899.207','Case of British warblers','Rowland Ward Ltd','1899','mixed: skins, glass, wood','G2',1899,'purchase',1800),
('CVM.1931.055','Ichthyosaur vertebra','natural','Lower Jurassic','fossil bone','G2',1931,'gift',400),
('CVM.1977.012','Herbarium sheets, Carrow marshes (112 sheets)','Ada Finchley','1881-1894','paper, dried plants','STORE-B',1977,'bequest',NULL),
('CVM.1988.301','Otter, mounted','J. Pettigrew, taxidermist','1934','skin, wire, glass eyes','G2',1988,'gift',950),
('CVM.1921.066','Sampler, alphabet and verse','Martha Ibbott, aged 11','1812','silk on linen','G3',1921,'gift',2400),
('CVM.1955.009','Wedding dress, ivory satin','Hartnell (attrib.)','1938','silk satin, lace','G3',1955,'bequest',6500),
('CVM.1955.010','Going-away outfit','unknown','1938','wool crepe','STORE-B',1955,'bequest',1100),
('CVM.2003.044','Banner, Carrow Vale Co-operative Women''s Guild','guild members','1921','painted silk, cotton fringe','G3',2003,'transfer',4000),
('CVM.2019.002','Knitted gansey, Sheringham pattern','unknown','c. 1900','wool','STORE-B',2019,'purchase',300),
('CVM.1911.001','Portrait of a Lady','Joshua Reynolds (circle of)','c. 1765','oil on canvas','G4',1911,'bequest',145000),
('CVM.1911.002','Portrait of a Lady (study)','Joshua Reynolds (circle of)','c. 1765','oil on paper laid on board','STORE-A',1911,'bequest',NULL),
('CVM.1934.017','Marsh at Dusk','John Crome','c. 1810','oil on panel','G4',1934,'purchase',210000),
('CVM.1946.003','The River Wensum near Carrow','John Sell Cotman','1807','watercolour','STORE-A',1946,'gift',38000),
('CVM.1960.021','Harvest, Low Farm','Edward Seago','1949','oil on canvas','G4',1960,'gift',52000),
('CVM.1982.140','Self-portrait in a Green Coat','Mary Newcomb','1978','oil on board','G4',1982,'purchase',27500),
('CVM.1999.006','Vase, Cowrie glaze','Lucie Rie','c. 1968','stoneware','G4',1999,'bequest',41000),
('CVM.2011.078','Untitled (Tide Table)','Rachel Whiteread','2009','plaster, pigment','G4',2011,'gift',18000),
('CVM.2021.015','Carrow Vale from the Water Tower','Femi Adebayo','2020','acrylic on canvas','G4',2021,'purchase',9000),
('CVM.1974.200','Tithe map of Carrow Vale parish','W. Dunn, surveyor','1841','ink and wash on paper','STORE-A',1974,'transfer',7000),
('CVM.1990.088','Shop sign, "Fisk & Sons, Ironmongers"','unknown','c. 1890','painted wood','G1',1990,'gift',800);
UNLOCK TABLES;

--
-- Table structure for table `loans_out`
--

DROP TABLE IF EXISTS `loans_out`;
CREATE TABLE `loans_out` (
  `loan_ref` varchar(12) NOT NULL,
  `accession_no` varchar(20) NOT NULL,
  `borrower` varchar(150) NOT NULL,
  `exhibition` varchar(200) DEFAULT NULL,
  `loan_start` date DEFAULT NULL,
  `loan_end` date DEFAULT NULL,
  `status` enum('requested','agreed','on loan','returned','declined') NOT NULL,
  PRIMARY KEY (`loan_ref`),
  KEY `fk_obj` (`accession_no`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

LOCK TABLES `loans_out` WRITE;
INSERT INTO `loans_out` VALUES
('LO-2024-011','CVM.1934.017','Tate Britain','Constable, Crome and the English Landscape','2024-09-20','2025-02-02','returned'),
('LO-2025-003','CVM.1955.009','Fashion Museum Bath','Something Borrowed: Bridalwear 1900-1960','2025-05-01','2025-10-31','returned'),
('LO-2025-019','CVM.1946.003','Norwich Castle Museum','Cotman in Norfolk','2025-11-14','2026-05-03','on loan'),
('LO-2026-002','CVM.1999.006','Holburne Museum','Potters of the Twentieth Century','2026-02-07','2026-06-14','on loan'),
('LO-2026-004','CVM.2003.044','People''s History Museum, Manchester','Votes and Voices','2026-03-21','2026-09-27','on loan'),
('LO-2026-007','CVM.1951.118','British Museum','Light in the Roman Home','2026-06-05','2026-10-11','agreed'),
('LO-2026-009','CVM.1960.021','Sainsbury Centre','Seago and the Broads','2026-10-01','2027-01-17','requested'),
('LO-2026-010','CVM.1911.001','Gainsborough''s House','Faces of Suffolk','2026-07-01','2026-09-30','declined');
UNLOCK TABLES;

--
-- Table structure for table `visitor_feedback`
--

DROP TABLE IF EXISTS `visitor_feedback`;
CREATE TABLE `visitor_feedback` (
  `id` int NOT NULL AUTO_INCREMENT,
  `visit_date` date NOT NULL,
  `source` varchar(20) DEFAULT NULL,
  `stars` tinyint DEFAULT NULL,
  `comment` text,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB AUTO_INCREMENT=417 DEFAULT CHARSET=utf8mb4;

LOCK TABLES `visitor_feedback` WRITE;
INSERT INTO `visitor_feedback` VALUES
(401,'2026-03-01','kiosk',5,'Loved the Crome painting, the new lighting in the fine art room is beautiful.'),
(402,'2026-03-01','card',2,'Cafe ran out of sandwiches by 12.30 and the soup was lukewarm. Disappointing for the price.'),
(403,'2026-03-03','web',4,'Great half-term trail for the kids, my 6 year old found all the animals.'),
(404,'2026-03-05','card',2,'The lift to the first floor was out of order and nobody told us at the desk. My husband uses a wheelchair so we saw half the museum.'),
(405,'2026-03-06','kiosk',3,'Nice collection but the textiles room felt small, expected more costume after the website photos.'),
(406,'2026-03-08','web',1,'Waited 25 minutes for a coffee in the cafe, two staff on and a huge queue. Gave up.'),
(407,'2026-03-08','kiosk',5,'Friendly volunteers, the otter is my favourite!'),
(408,'2026-03-10','card',4,'Good visit. Cafe scones were excellent, would come back just for those.'),
(409,'2026-03-12','web',2,'Accessible toilet on the ground floor was being used as a store room, mops and boxes everywhere.'),
(410,'2026-03-14','kiosk',4,'The Roman lamp with the mask is lovely. Shame the coin hoard is not on show.'),
(411,'2026-03-15','card',3,'Parking is a nightmare on a Saturday, otherwise fine.'),
(412,'2026-03-15','web',2,'Overpriced cafe - 4.80 for a small tea and a flapjack that was stale.'),
(413,'2026-03-19','kiosk',5,'Wonderful wedding dress display, so much detail.'),
(414,'2026-03-21','web',3,'Steps at the main entrance with no handrail, my mum struggled. The ramp at the side is not signposted.'),
(415,'2026-03-22','card',4,'Shop had lovely cards of the Cotman watercolour even though the painting itself is away on loan.'),
(416,'2026-03-28','kiosk',2,'Audio guide kept cutting out in gallery 4 and the cafe was closed with no notice on the website.');
UNLOCK TABLES;

/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;
/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;

-- Dump completed on 2026-04-02  01:15:09
